// The output card of the demo page: the source as the model cut it (unknown words marked), one
// line per step of the followed hypothesis ("input → output", click to go there), the
// translation so far.
import { byId as $, setText } from '../util/html.js';
import { markerHelp, piecesShown, shownText, shownWords, tokenLabel } from '../util/pieces.js';

/**
 * What the model did, in words, when the result looks broken: an empty translation (it ended at
 * once, or wrote only special tokens) or a run that hit the length limit. '' otherwise.
 */
export function outcomeNote(snap) {
  if (!snap.done) return '';
  const tokens = snap.path.tokens;
  const empty = !snap.path.text.trim();
  const output = snap.input === 'prompt' ? 'continuation' : 'translation'; // what a prompt's model writes is no translation
  const parts = [];
  if (snap.hitMaxLength) {
    const counts = new Map();
    for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
    const [top, n] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    parts.push(`The model never wrote “${snap.eos}” (end of sentence): it stopped at the length limit of ${tokens.length} tokens`
      + (n > tokens.length / 2 ? `, having written “${tokenLabel(top, { subwords: snap.subwords, show: piecesShown() })}” ${n} times` : '') + '.');
    if (empty) parts.push(`Those are special tokens, not words, so the ${output} is empty.`);
  } else if (empty && tokens.length <= 1) {
    parts.push(`The model ended at once: the first token it chose was “${snap.eos}” (end of sentence), so the ${output} is empty.`);
  } else if (empty) {
    parts.push(`The model wrote only special tokens (${tokens.join(' ')}), not words, so the ${output} is empty.`);
  }
  return parts.join(' ');
}

/** What a line (or the source) shows: one whose key is unchanged is left as it is (no DOM write). */
const shown = new WeakMap(); // element -> its key
const lineKey = (input, row, current, show) => JSON.stringify([input, row.output, !!row.forced, current, show]);

/** One line of the list, "k) input → output", its step in data-step (the click goes there). */
function newLine(onClick) {
  const li = document.createElement('li');
  li.innerHTML = '<button type="button" class="line"><span class="n"></span> <span class="in"></span> <span class="arrow">→</span> <span class="out"></span></button>';
  li.firstChild.addEventListener('click', () => onClick(Number(li.dataset.step)));
  return li;
}

/**
 * Writes step `k`'s row into `li` (a new line, or one that showed something else); `input`: what
 * the step read, as shown.
 */
function fillLine(li, row, k, current, pieces, input) {
  const button = li.firstChild;
  li.dataset.step = k + 1;
  li.classList.toggle('current', current);
  if (current) li.setAttribute('aria-current', 'step');
  else li.removeAttribute('aria-current');
  button.title = `Go to step ${k + 1}`;
  button.querySelector('.n').textContent = `${k + 1})`;
  button.querySelector('.in').textContent = input;
  button.querySelector('.out').textContent = tokenLabel(row.output, pieces);
  const badge = button.querySelector('.badge');
  if (row.forced && !badge) {
    const f = document.createElement('span');
    f.className = 'badge';
    f.textContent = 'forced';
    button.append(' ', f);
  } else if (!row.forced && badge) {
    badge.previousSibling.remove(); // the space before it
    badge.remove();
  }
  shown.set(li, lineKey(input, row, current, pieces.show));
}

// The list's lines are kept from one snapshot to the next: a press of Next appends one line and
// rewrites the one that stops being current; only lines whose row changed are written.
let gotoStep = () => {};
let scrollAsked = false; // a scroll to the last line is queued for the next frame
const goto = (step) => gotoStep(step);

/** onGoto(step): a line was clicked. */
export function renderOutput(snap, { onGoto }) {
  gotoStep = onGoto;
  const pieces = { subwords: snap.subwords, show: piecesShown() };
  const src = $('source-tokens');
  const { pieces: source, unknown } = snap.source;
  const sourceKey = JSON.stringify([source, unknown, pieces]);
  if (shown.get(src) !== sourceKey) { // the same source for a whole session: drawn once
    // A chip per word (pieces hidden) or per piece; marked when a piece of it is unknown.
    src.replaceChildren(...shownWords(source, pieces).map((w) => {
      const t = document.createElement('span');
      t.className = 'tok';
      t.textContent = w.text;
      if (source.slice(w.from, w.to).some((p) => unknown.includes(p) || p === '<unk>')) t.classList.add('unknown');
      return t;
    }));
    if (snap.source.unknown.length) {
      const w = document.createElement('span');
      w.className = 'warn';
      w.textContent = ` unknown to this model: ${snap.source.unknown.join(', ')}`;
      src.append(w);
    }
    shown.set(src, sourceKey);
  }
  const lines = $('lines');
  if (!snap.rows.length) {
    if (!lines.querySelector(':scope > .placeholder')) {
      const li = document.createElement('li');
      li.className = 'placeholder';
      li.textContent = 'Nothing generated yet. Press Next (or →) to run the first step.';
      lines.replaceChildren(li);
    }
  } else {
    lines.querySelector(':scope > .placeholder')?.remove();
    const kept = lines.children;
    while (kept.length > snap.rows.length) kept[kept.length - 1].remove();
    // A decoder-only model's first step reads the whole prompt (snap.input 'prompt'), as
    // source.pieces has it: <s> first only where the model reads one.
    const opening = snap.input === 'prompt' ? shownText(source, pieces) : null;
    snap.rows.forEach((row, k) => {
      const current = k === snap.rows.length - 1;
      const input = k === 0 && opening !== null ? opening : tokenLabel(row.input, pieces);
      let li = kept[k];
      if (!li) {
        li = newLine(goto);
        lines.append(li);
      }
      if (shown.get(li) !== lineKey(input, row, current, pieces.show)) fillLine(li, row, k, current, pieces, input);
    });
  }
  // The current line in view inside the list's own scroll box; never scrolls the page (on a
  // phone the list is below the fold, and the page jumped down on load). In the next frame:
  // reading scrollHeight now would force a layout in the middle of the step's render.
  if (!scrollAsked) {
    scrollAsked = true;
    requestAnimationFrame(() => {
      scrollAsked = false;
      lines.scrollTop = lines.scrollHeight;
    });
  }
  $('pieces-line').hidden = !snap.subwords;
  setText($('pieces-help'), markerHelp(snap.subwords));
  const note = outcomeNote(snap);
  $('outcome-note').hidden = !note;
  setText($('outcome-note'), note);
  setText($('translation'), snap.path.text);
  const tokens = snap.path.tokens.join(' ');
  if ($('translation').dataset.tokens !== tokens) $('translation').dataset.tokens = tokens;
}
