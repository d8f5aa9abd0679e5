// The output card of the demo page: the source as the model cut it (unknown words marked), one
// line per step of the followed hypothesis ("input → output", click to go there), the
// translation so far.
import { byId as $ } from './html.js';

/** onGoto(step): a line was clicked. */
export function renderOutput(snap, { onGoto }) {
  const src = $('source-tokens');
  src.replaceChildren(...snap.source.pieces.map((p) => {
    const t = document.createElement('span');
    t.className = 'tok';
    t.textContent = p;
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
    li.querySelector('.in').textContent = row.input;
    li.querySelector('.out').textContent = row.output;
    if (row.forced) {
      const f = document.createElement('span');
      f.className = 'badge';
      f.textContent = 'forced';
      li.firstChild.append(' ', f);
    }
    li.firstChild.addEventListener('click', () => onGoto(k + 1));
    lines.append(li);
  });
  lines.lastElementChild?.scrollIntoView?.({ block: 'nearest' });
  $('translation').textContent = snap.path.text;
  $('translation').dataset.tokens = snap.path.tokens.join(' ');
}
