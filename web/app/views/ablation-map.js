// The head-ablation map of an encoder-only model: Δ masked-token accuracy for every layer × head
// switched off (model.headAblation, or a file precomputed with attnscope-cli bert-study and
// shipped as models/analysis/<model>.ablation.json), as one diverging heatmap, with the five heads
// whose loss hurts most. Every number is the engine's; this file lays them out and orders them.
import { Heatmap } from './heatmap.js';
import { counted } from '../util/html.js';

const el = (tag, props = {}) => Object.assign(document.createElement(tag), props);
const signed = (v) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(4)}`;

/** Fetches a precomputed ablation file (`url`: absolute): {ablation, meta}. */
export async function loadAblationFile(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot fetch the precomputed head ablation '${url}': HTTP ${response.status}`);
  const json = await response.json();
  if (!Array.isArray(json?.ablation?.delta)) throw new Error('not a head-ablation file: no "ablation.delta"');
  return { ablation: json.ablation, meta: { model: json.model, data: json.data, command: json.command, seconds: json.seconds } };
}

export class AblationMap {
  #box;
  #map = null;

  constructor(box) {
    this.#box = box;
  }

  /** Shows `ablation` ({baseAccuracy, positions, delta[layer][head], ...}) under `caption` (text). */
  show(ablation, caption) {
    this.#map?.dispose();
    const { delta } = ablation;
    const L = delta.length;
    const H = delta[0]?.length ?? 0;
    const extent = Math.max(...delta.flat().map(Math.abs)) || 1;
    const cap = el('p', { className: 'caption', textContent: caption });
    const base = el('p', { className: 'enc-base' });
    base.append('Masked-token accuracy with every head: ', el('b', { textContent: ablation.baseAccuracy.toFixed(4) }),
      ` on ${counted(ablation.positions, 'masked piece')}${ablation.sentences ? ` of ${counted(ablation.sentences, 'sentence')}` : ''}.`);
    const fig = el('figure', { className: 'hi-site enc-ablation-map' });
    this.#box.replaceChildren(cap, base, fig);
    this.#map = new Heatmap(fig);
    this.#map.set({
      values: delta, rowLabels: delta.map((_, l) => `layer ${l + 1}`), colLabels: Array.from({ length: H }, (_, h) => `head ${h + 1}`),
      highlightRow: -1, maxCell: 46, scale: { min: -extent, max: extent, diverging: true }, legendLabel: 'Δ masked-token accuracy',
      describe: (r, c) => `layer ${r + 1}, head ${c + 1} switched off: Δ accuracy`,
      ariaLabel: `Head ablation: Δ masked-token accuracy, ${L} layers × ${H} heads`,
    });
    // Most important: switching it off lowers the accuracy most. Ties keep layer-then-head order.
    const heads = delta.flatMap((row, l) => row.map((d, h) => ({ layer: l, head: h, delta: d })));
    const top = [...heads].sort((a, b) => a.delta - b.delta).slice(0, Math.min(5, heads.length));
    const ol = el('ol', { className: 'enc-top' });
    for (const h of top) {
      const li = el('li');
      li.dataset.layer = h.layer;
      li.dataset.head = h.head;
      li.dataset.delta = h.delta;
      li.append(`layer ${h.layer + 1}, head ${h.head + 1}: `, el('b', { textContent: signed(h.delta) }));
      ol.append(li);
    }
    const lists = el('div', { className: 'hi-lists' });
    const part = el('div');
    part.append(el('h4', { textContent: 'Most important heads (switching one off costs the most accuracy)' }), ol);
    lists.append(part);
    this.#box.append(lists);
  }

  clear(text = '') {
    this.#map?.dispose();
    this.#map = null;
    this.#box.replaceChildren(...(text ? [el('p', { className: 'caption', textContent: text })] : []));
  }
}
