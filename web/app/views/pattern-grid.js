// The model view of an encoder-only model: every layer × head's self-attention map as a
// thumbnail, each with the pattern class the engine gave it (Kovaleva et al. 2019; rules in
// src/analysis/attention_maps.h), and how many heads fall in each class. Takes tokens, the
// attention tensor [layers, heads, T, T] and patterns[layer][head]; knows nothing of the family.
import { PATTERN_RULES } from '../panels/analyses.js';
import { Heatmap } from './heatmap.js';
import { attentionSpec } from './views.js';

export const PATTERNS = ['vertical', 'diagonal', 'vertical+diagonal', 'block', 'heterogeneous'];

const el = (tag, props = {}) => Object.assign(document.createElement(tag), props);

export class PatternGrid {
  #box;
  #maps = [];

  constructor(box) {
    this.#box = box;
  }

  /** {tokens, attention: {shape, data}, patterns, label}: label names the site ("Self-attention"). */
  set({ tokens, attention, patterns, label = 'Self-attention' }) {
    for (const m of this.#maps) m.dispose();
    this.#maps = [];
    const [L, H] = attention.shape;
    const site = { label, queries: 'source', keys: 'source', perStep: false };
    const text = (i) => `“${tokens[i]}” (position ${i})`;
    const map = { site, queries: { labels: tokens, text }, keys: { labels: tokens, text }, highlightRow: -1, tensor: attention };
    const avail = this.#box.clientWidth || 800;
    const size = Math.floor(Math.max(40, Math.min(110, (avail - 70) / H - 16)));
    const grid = el('div', { className: 'model-grid enc-grid' });
    grid.style.setProperty('--heads', H);
    grid.style.setProperty('--thumb', `${size}px`);
    grid.append(el('span', { className: 'corner' }));
    for (let h = 0; h < H; h++) grid.append(el('span', { className: 'col-head', textContent: `head ${h + 1}` }));
    const counts = new Map(PATTERNS.map((p) => [p, 0]));
    for (let l = 0; l < L; l++) {
      grid.append(el('span', { className: 'row-head', textContent: `layer ${l + 1}` }));
      for (let h = 0; h < H; h++) {
        const cell = el('div', { className: 'thumb' });
        cell.dataset.layer = l;
        cell.dataset.head = h;
        grid.append(cell);
        const spec = attentionSpec(map, l, h);
        const hm = new Heatmap(cell);
        hm.set({ ...spec, compact: true, size, legend: false, describe: (r, c) => `layer ${l + 1}, head ${h + 1}: ${spec.describe(r, c)}` });
        this.#maps.push(hm);
        const pattern = patterns[l][h];
        counts.set(pattern, (counts.get(pattern) ?? 0) + 1);
        const badge = el('span', { className: 'pattern', textContent: pattern, title: `${pattern}. ${PATTERN_RULES}` });
        badge.dataset.pattern = pattern;
        cell.dataset.pattern = pattern;
        cell.append(badge);
      }
    }
    const summary = el('p', { className: 'caption enc-pattern-counts' });
    summary.append(`${L * H} heads: `);
    [...counts].filter(([, n]) => n > 0).forEach(([p, n], i) => {
      const s = el('span', { textContent: `${p} ${n}` });
      s.dataset.pattern = p;
      s.dataset.count = n;
      summary.append(i ? ' · ' : '', s);
    });
    const legend = el('div', { className: 'legend-bar' });
    legend.append(el('span', { textContent: '0' }), el('i', { ariaHidden: 'true' }), el('span', { textContent: '1' }), el('span', { className: 'muted', textContent: 'attention weight' }));
    this.#box.replaceChildren(summary, grid, legend);
  }
}
