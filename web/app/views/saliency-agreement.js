// "Attention vs attribution": Kendall's τ-b between each head's attention row and |attribution|,
// as two layers × heads grids, this step's and the mean over the steps up to it. A cell's text is τ (— where
// it is undefined) and its colour τ's sign and size. Takes the engine's agreement objects
// ({site, layers, heads, tau: [layer * heads + head]}, session.attribution, docs/js-api.md) as
// they are.

import { readOut } from './saliency-strip.js';

const el = (tag, props = {}) => Object.assign(document.createElement(tag), props);
const shown = (t) => (Number.isNaN(t) ? '—' : t.toFixed(2));

function grid(agreement, title) {
  const table = el('table', { className: 'agreement-grid' });
  table.append(el('caption', { textContent: `${title} (${agreement.site})` }));
  const head = el('tr');
  head.append(el('th', { scope: 'col', textContent: 'layer \\ head' }));
  for (let h = 0; h < agreement.heads; h++) head.append(el('th', { scope: 'col', textContent: String(h + 1) }));
  table.appendChild(el('thead')).append(head);
  const body = table.appendChild(el('tbody'));
  for (let l = 0; l < agreement.layers; l++) {
    const row = body.appendChild(el('tr'));
    row.append(el('th', { scope: 'row', textContent: String(l + 1) }));
    for (let h = 0; h < agreement.heads; h++) {
      const t = agreement.tau[l * agreement.heads + h];
      const cell = el('td', {
        tabIndex: 0, textContent: shown(t),
        title: `${title}, layer ${l + 1}, head ${h + 1}: τ = ${Number.isNaN(t) ? 'undefined (a constant row)' : t.toFixed(3)}`,
      });
      cell.dataset.tau = String(t);
      cell.classList.add(Number.isNaN(t) ? 'undefined' : t >= 0 ? 'positive' : 'negative');
      if (!Number.isNaN(t)) cell.style.setProperty('--t', String(Math.abs(t)));
      row.append(cell);
    }
  }
  return table;
}

/** The mean grid's title: the steps it averages, 1 to the current one (`steps`: how many). */
export const meanTitle = (steps) => (steps === 1 ? 'Mean over step 1' : `Mean over steps 1–${steps}`);

export class AgreementGrids {
  #box;
  #detail;

  constructor(box, detail) {
    this.#box = box;
    this.#detail = detail;
    readOut(box, detail, 'td[data-tau]');
  }

  /** step, mean: agreement objects, mean's `steps` how many it averages (either may be absent: no attention to compare). */
  set({ step, mean }) {
    const parts = [];
    if (step) parts.push(grid(step, 'This step'));
    if (mean) parts.push(grid(mean, meanTitle(mean.steps)));
    if (!parts.length) parts.push(el('p', { className: 'placeholder', textContent: 'No attention site to compare with.' }));
    this.#box.replaceChildren(...parts);
    this.#detail.textContent = '';
  }

  message(text, className = 'placeholder') {
    this.#box.replaceChildren(el('p', { className, textContent: text }));
    this.#detail.textContent = '';
  }
}
