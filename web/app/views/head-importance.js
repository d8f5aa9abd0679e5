// Draws a head-importance sweep (Model.headImportance, or a sweep precomputed with
// models/head_sweep.py and shipped as models/analysis/<model>.heads.json): one layer × head
// heatmap per attention site (in the order the sweep lists them, titled by the model's site table), a switch between Δ log-likelihood and
// Δ BLEU, and the three most and least important heads. Every number is the engine's; this file
// only lays them out (and orders them for the lists).
import { Heatmap } from './heatmap.js';
import { esc } from '../util/html.js';
import { siteNamed } from '../model/sites.js';

/** The metrics a sweep may hold: the field of each head, how it is said, how it is printed. */
export const METRICS = {
  ll: { field: 'deltaLogLikelihood', label: 'Δ log-likelihood per reference token', short: 'Δ log-likelihood', digits: 4 },
  bleu: { field: 'deltaBleu', label: 'Δ BLEU (corpus, 13a)', short: 'Δ BLEU', digits: 2 },
};

const signed = (v, digits) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(digits)}`;

/**
 * A models/analysis/*.heads.json file (snake_case, as the CLI writes it) in the shape of
 * Model.headImportance's answer, plus what it was computed on.
 */
export function fromSweepFile(json) {
  if (!Array.isArray(json?.heads)) throw new Error('not a head-importance sweep: no "heads" list');
  return {
    result: {
      baseLogLikelihood: json.base_log_likelihood, baseBleu: json.base_bleu, tokens: json.tokens,
      heads: json.heads.map((h) => ({
        site: h.site, layer: h.layer, head: h.head, deltaLogLikelihood: h.delta_log_likelihood,
        ...(h.delta_bleu !== undefined ? { deltaBleu: h.delta_bleu } : {}),
      })),
    },
    meta: { model: json.model, data: json.data, command: json.command, seconds: json.seconds, sentences: json.sentences },
  };
}

/** Fetches and reads a precomputed sweep (`url`: absolute). */
export async function loadSweepFile(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot fetch the precomputed sweep '${url}': HTTP ${response.status}`);
  return fromSweepFile(await response.json());
}

/** One sweep's figure: metric switch, a heatmap per site, the most and least important heads. */
export class SweepView {
  #box;
  #id;
  #maps = [];
  #result = null;
  #sites = [];
  #metric = 'll';

  /** `box`: the element to fill; `id`: prefix of the element ids (hi → #hi-cross, #hi-most, …). */
  constructor(box, id) {
    this.#box = box;
    this.#id = id;
  }

  /** The metric shown ('ll' or 'bleu'). */
  get metric() { return this.#metric; }

  /**
   * Shows `result` (Model.headImportance's shape) under the caption `caption` (a node or text);
   * `sites`: the model's site table (web/app/model/sites.js), for the sites' labels.
   */
  show(result, caption, sites = []) {
    this.#result = result;
    this.#sites = sites;
    const hasBleu = result.heads.length > 0 && result.heads.every((h) => Number.isFinite(h.deltaBleu));
    if (!hasBleu) this.#metric = 'll';
    this.#box.replaceChildren();
    const tools = document.createElement('div');
    tools.className = 'view-tools';
    const select = document.createElement('select');
    select.id = `${this.#id}-metric`;
    for (const [key, m] of Object.entries(METRICS)) {
      const o = new Option(m.short, key, false, key === this.#metric);
      o.disabled = key === 'bleu' && !hasBleu;
      if (o.disabled) o.title = 'This sweep did not decode: no BLEU';
      select.append(o);
    }
    select.addEventListener('change', () => { this.#metric = select.value; this.#draw(); });
    const label = document.createElement('label');
    label.className = 'inline';
    label.append('Colour by ', select);
    tools.append(label);
    if (!hasBleu) tools.append(Object.assign(document.createElement('span'), { className: 'muted', textContent: 'Δ BLEU: not computed in this sweep' }));
    const cap = document.createElement('p');
    cap.className = 'caption';
    cap.append(caption);
    this.#box.append(cap, tools, Object.assign(document.createElement('div'), { className: 'hi-grid' }),
      Object.assign(document.createElement('div'), { className: 'hi-lists' }));
    this.#draw();
  }

  #draw() {
    const m = METRICS[this.#metric];
    const heads = this.#result.heads;
    const value = (h) => h[m.field];
    this.#box.dataset.metric = this.#metric;
    for (const map of this.#maps) map.dispose();
    this.#maps = [];
    const grid = this.#box.querySelector('.hi-grid');
    grid.replaceChildren();
    const extent = Math.max(...heads.map((h) => Math.abs(value(h)))) || 1;
    const title = (name) => siteNamed(this.#sites, name)?.label ?? name;
    for (const site of new Set(heads.map((h) => h.site))) {
      const mine = heads.filter((h) => h.site === site);
      if (!mine.length) continue;
      const L = Math.max(...mine.map((h) => h.layer)) + 1;
      const H = Math.max(...mine.map((h) => h.head)) + 1;
      const values = Array.from({ length: L }, () => new Array(H));
      for (const h of mine) values[h.layer][h.head] = value(h);
      const fig = document.createElement('figure');
      fig.className = 'hi-site';
      fig.dataset.site = site;
      fig.append(Object.assign(document.createElement('figcaption'), { textContent: title(site) }));
      grid.append(fig);
      const map = new Heatmap(fig);
      map.root.id = `${this.#id}-${site}`;
      map.set({
        values, rowLabels: values.map((_, l) => `layer ${l + 1}`), colLabels: Array.from({ length: H }, (_, h) => `head ${h + 1}`),
        highlightRow: -1, maxCell: 46, scale: { min: -extent, max: extent, diverging: true }, legendLabel: m.label,
        describe: (r, c) => `${title(site)}, layer ${r + 1}, head ${c + 1} masked: ${m.label}`,
        ariaLabel: `Head importance by ${m.short}, ${title(site)}: ${L} layers × ${H} heads`,
      });
      this.#maps.push(map);
    }
    // Most important: masking it lowers the metric most. Ties keep the engine's order.
    const sorted = [...heads].sort((a, b) => value(a) - value(b));
    const other = METRICS[this.#metric === 'll' ? 'bleu' : 'll'];
    const item = (h) => {
      const also = Number.isFinite(h[other.field]) ? ` <span class="muted">(${other.short} ${signed(h[other.field], other.digits)})</span>` : '';
      return `<li data-site="${esc(h.site)}" data-layer="${h.layer}" data-head="${h.head}" data-value="${value(h)}">${esc(title(h.site))}, layer ${h.layer + 1}, head ${h.head + 1}: <b>${esc(signed(value(h), m.digits))}</b>${also}</li>`;
    };
    const k = Math.min(3, sorted.length);
    this.#box.querySelector('.hi-lists').innerHTML = `<div><h4>Most important by ${m.short} (masking hurts most)</h4><ol id="${this.#id}-most">${sorted.slice(0, k).map(item).join('')}</ol></div>
      <div><h4>Least important by ${m.short}</h4><ol id="${this.#id}-least">${sorted.slice(-k).reverse().map(item).join('')}</ol></div>`;
  }
}
