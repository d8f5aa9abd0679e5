// The logit lens as a grid (nostalgebraist 2020): one row per decoder layer (the last, whose
// reading is the model's own prediction, on top), one column per step. A cell's colour is the
// probability that layer's readout gives the token the step chose; its text is the layer's most
// probable token; hover or focus shows the layer's top-k. Takes the engine's answer as it is
// (session.logitLens, docs/js-api.md); model strings reach the page as text, never as markup.
// A cell is coloured as a heatmap's cell of that probability, its text black or white as the
// heatmaps choose it (colour-scale.js cellColours), in both themes.
import { cellColours } from './colour-scale.js';

const el = (tag, props = {}) => Object.assign(document.createElement(tag), props);
const percent = (p) => `${(100 * p).toFixed(p < 0.001 ? 3 : 1)}%`;

export class LogitLensGrid {
  #box;
  #detail;

  /** box: where the grid goes; detail: the line that reads out the cell under the pointer or focus. */
  constructor(box, detail) {
    this.#box = box;
    this.#detail = detail;
    const show = (e) => {
      const cell = e.target.closest?.('td[data-layer]');
      if (cell) this.#detail.textContent = cell.title;
    };
    box.addEventListener('mouseover', show);
    box.addEventListener('focusin', show);
  }

  /**
   * lens: {layers, steps: [{id, token, layers: [{top: [{id, piece, p}], chosen: {p, rank}}]}]};
   * label: piece -> the text the page shows for it; current: the step highlighted (default: the last).
   */
  set({ lens, label = (piece) => piece, current = lens.steps.length - 1 }) {
    const table = el('table', { className: 'lens-grid' });
    table.append(el('caption', {
      textContent: `Logit lens: ${lens.layers} decoder layers × ${lens.steps.length} steps; colour: the chosen token's probability at that layer`,
    }));
    const head = el('tr');
    head.append(el('th', { scope: 'col', textContent: 'layer \\ step' }));
    lens.steps.forEach((step, s) => {
      const th = el('th', { scope: 'col', textContent: label(step.token), title: `step ${s + 1}: “${label(step.token)}” was chosen` });
      th.classList.toggle('current', s === current);
      head.append(th);
    });
    table.appendChild(el('thead')).append(head);
    const body = table.appendChild(el('tbody'));
    for (let l = lens.layers - 1; l >= 0; l--) {
      const row = body.appendChild(el('tr'));
      row.append(el('th', { scope: 'row', textContent: l === lens.layers - 1 ? `${l + 1} (output)` : `${l + 1}` }));
      lens.steps.forEach((step, s) => {
        const reading = step.layers[l];
        const top = reading.top.map((t) => `“${label(t.piece)}” ${percent(t.p)}`).join(', ');
        const cell = el('td', {
          tabIndex: 0,
          textContent: reading.top.length ? label(reading.top[0].piece) : '',
          title: `Layer ${l + 1}, step ${s + 1}: “${label(step.token)}” (chosen) ${percent(reading.chosen.p)}, rank ${reading.chosen.rank}; top: ${top}`,
        });
        Object.assign(cell.dataset, { layer: l, step: s, p: reading.chosen.p, rank: reading.chosen.rank });
        const { fill, ink } = cellColours(reading.chosen.p);
        Object.assign(cell.style, { background: fill, color: ink });
        cell.classList.toggle('current', s === current);
        row.append(cell);
      });
    }
    this.#box.replaceChildren(table);
    this.#detail.textContent = '';
  }

  /** A line instead of the grid (no step yet, or the engine's error). */
  message(text, className = 'placeholder') {
    this.#box.replaceChildren(el('p', { className, textContent: text }));
    this.#detail.textContent = '';
  }
}
