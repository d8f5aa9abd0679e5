// The output card of the demo page: the source as the model cut it (unknown words marked), one
// line per step of the followed hypothesis ("input → output", click to go there), the
// translation so far.
import { byId as $ } from './html.js';
import { marksWords, pieceInto } from './pieces.js';

/**
 * What the model did, in words, when the result looks broken: an empty translation (it ended at
 * once, or wrote only special tokens) or a run that hit the length limit. '' otherwise.
 */
export function outcomeNote(snap) {
  if (!snap.done) return '';
  const tokens = snap.path.tokens;
  const empty = !snap.path.text.trim();
  const parts = [];
  if (snap.hitMaxLength) {
    const counts = new Map();
    for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
    const [top, n] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    parts.push(`The model never wrote “${snap.eos}” (end of sentence): it stopped at the length limit of ${tokens.length} tokens`
      + (n > tokens.length / 2 ? `, having written “${top}” ${n} times` : '') + '.');
    if (empty) parts.push('Those are special tokens, not words, so the translation is empty.');
  } else if (empty && tokens.length <= 1) {
    parts.push(`The model ended at once: the first token it chose was “${snap.eos}” (end of sentence), so the translation is empty.`);
  } else if (empty) {
    parts.push(`The model wrote only special tokens (${tokens.join(' ')}), not words, so the translation is empty.`);
  }
  return parts.join(' ');
}

/** onGoto(step): a line was clicked. */
export function renderOutput(snap, { onGoto }) {
  const src = $('source-tokens');
  src.replaceChildren(...snap.source.pieces.map((p) => {
    const t = document.createElement('span');
    t.className = 'tok';
    pieceInto(t, p);
    if (snap.source.unknown.includes(p) || p === '<unk>') t.classList.add('unknown');
    return t;
  }));
  if (snap.source.unknown.length) {
    const w = document.createElement('span');
    w.className = 'warn';
    w.textContent = ` unknown to this model: ${snap.source.unknown.join(', ')}`;
    src.append(w);
  }
  const lines = $('lines');
  lines.replaceChildren();
  if (!snap.rows.length) {
    const li = document.createElement('li');
    li.className = 'placeholder';
    li.textContent = 'Nothing generated yet. Press Next (or →) to run the first step.';
    lines.append(li);
  }
  snap.rows.forEach((row, k) => {
    const li = document.createElement('li');
    li.dataset.step = k + 1;
    if (k === snap.rows.length - 1) {
      li.classList.add('current');
      li.setAttribute('aria-current', 'step');
    }
    li.innerHTML = `<button type="button" class="line" title="Go to step ${k + 1}"><span class="n">${k + 1})</span> <span class="in"></span> <span class="arrow">→</span> <span class="out"></span></button>`;
    pieceInto(li.querySelector('.in'), row.input);
    pieceInto(li.querySelector('.out'), row.output);
    if (row.forced) {
      const f = document.createElement('span');
      f.className = 'badge';
      f.textContent = 'forced';
      li.firstChild.append(' ', f);
    }
    li.firstChild.addEventListener('click', () => onGoto(k + 1));
    lines.append(li);
  });
  // The current line in view inside the list's own scroll box; never scrolls the page (on a
  // phone the list is below the fold, and the page jumped down on load).
  lines.scrollTop = lines.scrollHeight;
  $('pieces-line').hidden = !marksWords([...snap.source.pieces, ...snap.path.tokens]);
  const note = outcomeNote(snap);
  $('outcome-note').hidden = !note;
  $('outcome-note').textContent = note;
  $('translation').textContent = snap.path.text;
  $('translation').dataset.tokens = snap.path.tokens.join(' ');
}
