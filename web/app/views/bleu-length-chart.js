// BLEU by source length as a line chart (Bahdanau et al. 2015, figure 2): one line per model over
// the bins of source length, a legend, each bin's sentence count under its label, the exact
// figure of a point on hover or focus, and the same figures as a table (the accessible reading).
// Draws what it is given: the engine's numbers (attnscope-cli bleu-by-length, shipped as
// models/analysis/bleu-by-length.json); the only arithmetic is the figure's own geometry.
import { counted } from '../util/html.js';

const SVG = 'http://www.w3.org/2000/svg';
// Okabe & Ito's colour-blind-safe hues; each line also has its own marker and dash.
const STYLES = [
  { color: '#0072b2', marker: 'circle', dash: '' },
  { color: '#d55e00', marker: 'square', dash: '6 3' },
  { color: '#009e73', marker: 'triangle', dash: '2 3' },
  { color: '#cc79a7', marker: 'diamond', dash: '8 3 2 3' },
];
const W = 640;
const H = 300;
const M = { left: 48, right: 40, top: 14, bottom: 58 };

/** "1–8", "21+": a bin's words as a label. */
export function binLabel(bin) {
  return bin.maxWords === null ? `${bin.minWords}+` : bin.minWords === bin.maxWords ? `${bin.minWords}` : `${bin.minWords}–${bin.maxWords}`;
}

const fmt = (x) => x.toFixed(2);

/** An HTML element with attributes and children (strings become text). */
function html(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  node.append(...children);
  return node;
}

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  parent?.append(node);
  return node;
}

function marker(kind, x, y, color, parent) {
  const r = 4.5;
  if (kind === 'circle') return el('circle', { cx: x, cy: y, r, fill: color }, parent);
  if (kind === 'square') return el('rect', { x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: color }, parent);
  const points = kind === 'triangle'
    ? [[x, y - r - 1], [x + r + 1, y + r], [x - r - 1, y + r]]
    : [[x, y - r - 1.5], [x + r + 1.5, y], [x, y + r + 1.5], [x - r - 1.5, y]];
  return el('polygon', { points: points.map((p) => p.join(',')).join(' '), fill: color }, parent);
}

/** A legend swatch: the line's dash with its marker. */
function swatch(style) {
  const svg = el('svg', { width: 34, height: 12, viewBox: '0 0 34 12', 'aria-hidden': 'true' });
  el('line', { x1: 1, y1: 6, x2: 33, y2: 6, stroke: style.color, 'stroke-width': 2, 'stroke-dasharray': style.dash }, svg);
  marker(style.marker, 17, 6, style.color, svg);
  return svg;
}

/**
 * Draws the chart into `container` (replacing what it held) and returns its root element.
 * `data`: {data (what was scored, in words), command, edges, models: [{id, label, beam,
 * lengthPenalty, command, bins: [{minWords, maxWords (null: no upper bound), sentences, bleu
 * (null: an empty bin)}], total: {sentences, bleu}}]}; every model has the same bins.
 */
export function drawBleuLengthChart(container, data) {
  const models = data.models;
  const bins = models[0].bins;
  const root = document.createElement('figure');
  root.className = 'bl-chart';
  const labels = bins.map(binLabel);

  const legend = document.createElement('ul');
  legend.className = 'bl-legend';
  legend.setAttribute('aria-label', 'Models');
  models.forEach((m, i) => {
    const li = document.createElement('li');
    li.dataset.model = m.id;
    li.append(swatch(STYLES[i % STYLES.length]));
    li.append(html('span', {}, `${m.label} `, html('span', { class: 'muted' },
      `(${m.id}, beam ${m.beam}, α ${m.lengthPenalty.toFixed(1)}; all: `, html('span', { class: 'bl-total' }, fmt(m.total.bleu)), ')')));
    legend.append(li);
  });

  const plot = document.createElement('div');
  plot.className = 'bl-plot';
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, role: 'group', class: 'bl-svg' });
  svg.setAttribute('aria-label', `BLEU by source length, ${models.length} models: the table below has every figure`);
  const values = models.flatMap((m) => m.bins.map((b) => b.bleu)).filter((v) => v !== null);
  const top = Math.max(10, Math.ceil(Math.max(...values) / 10) * 10);
  const x = (i) => M.left + (bins.length === 1 ? (W - M.left - M.right) / 2 : (i * (W - M.left - M.right)) / (bins.length - 1));
  const y = (v) => M.top + (1 - v / top) * (H - M.top - M.bottom);
  const axis = el('g', { class: 'bl-axis', 'aria-hidden': 'true' }, svg);
  for (let v = 0; v <= top; v += 10) {
    el('line', { x1: M.left, x2: W - M.right, y1: y(v), y2: y(v), class: v === 0 ? 'bl-base' : 'bl-grid' }, axis);
    el('text', { x: M.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, axis).textContent = String(v);
  }
  const yTitle = el('text', { x: 12, y: (M.top + H - M.bottom) / 2, 'text-anchor': 'middle', transform: `rotate(-90 12 ${(M.top + H - M.bottom) / 2})` }, axis);
  yTitle.textContent = 'BLEU';
  bins.forEach((b, i) => {
    const label = el('text', { x: x(i), y: H - M.bottom + 18, 'text-anchor': 'middle', class: 'bl-bin' }, axis);
    label.textContent = labels[i];
    const count = el('text', { x: x(i), y: H - M.bottom + 34, 'text-anchor': 'middle', class: 'bl-count', 'data-bin': i }, axis);
    count.textContent = `n = ${b.sentences}`;
  });
  el('text', { x: (M.left + W - M.right) / 2, y: H - 6, 'text-anchor': 'middle' }, axis).textContent = 'source length (words)';

  const tip = document.createElement('div');
  tip.className = 'bl-tip';
  tip.hidden = true;
  const show = (point) => {
    tip.textContent = point.getAttribute('aria-label');
    for (const k of ['model', 'bin', 'value']) tip.dataset[k] = point.dataset[k];
    tip.hidden = false;
    const box = point.getBoundingClientRect();
    const frame = plot.getBoundingClientRect();
    tip.style.left = `${box.left + box.width / 2 - frame.left}px`;
    tip.style.top = `${box.top - frame.top}px`;
  };
  const hide = () => { tip.hidden = true; };

  const points = [];
  models.forEach((m, k) => {
    const style = STYLES[k % STYLES.length];
    const g = el('g', { class: 'bl-series', 'data-model': m.id }, svg);
    // A line through consecutive bins that have a figure (an empty bin breaks it).
    let run = [];
    const flush = () => {
      if (run.length > 1) el('polyline', { points: run.join(' '), fill: 'none', stroke: style.color, 'stroke-width': 2, 'stroke-dasharray': style.dash }, g);
      run = [];
    };
    m.bins.forEach((b, i) => {
      if (b.bleu === null) { flush(); return; }
      run.push(`${x(i)},${y(b.bleu)}`);
    });
    flush();
    m.bins.forEach((b, i) => {
      if (b.bleu === null) return;
      const point = el('g', { class: 'bl-point', tabindex: 0, role: 'img', 'data-model': m.id, 'data-bin': i, 'data-value': b.bleu }, g);
      point.setAttribute('aria-label', `${m.label}, ${labels[i]} words (${counted(b.sentences, 'sentence')}): BLEU ${fmt(b.bleu)}`);
      el('circle', { cx: x(i), cy: y(b.bleu), r: 9, fill: 'transparent', class: 'bl-hit' }, point);
      marker(style.marker, x(i), y(b.bleu), style.color, point);
      point.addEventListener('focus', () => show(point));
      point.addEventListener('blur', hide);
      points.push({ point, x: x(i), y: y(b.bleu) });
    });
  });
  // The pointer shows the point nearest to it: points of close figures overlap, and the one
  // drawn last would otherwise hide the others from the mouse.
  svg.addEventListener('pointermove', (e) => {
    const at = new DOMPoint(e.clientX, e.clientY).matrixTransform(svg.getScreenCTM().inverse());
    let best = null;
    let bestDistance = 16;
    for (const p of points) {
      const d = Math.hypot(p.x - at.x, p.y - at.y);
      if (d < bestDistance) { best = p; bestDistance = d; }
    }
    if (best) show(best.point);
    else hide();
  });
  svg.addEventListener('pointerleave', hide);
  plot.append(svg, tip);

  const row = (head, cells, attrs = {}) => html('tr', attrs, html('th', { scope: 'row' }, head), ...cells.map((c) => html('td', {}, c)));
  const table = html('table', { class: 'bl-table' },
    html('caption', {}, 'BLEU by source length: the chart\'s figures'),
    html('thead', {}, html('tr', {}, ...['Source words', 'Sentences', ...models.map((m) => m.label)].map((t) => html('th', { scope: 'col' }, t)))),
    html('tbody', {},
      ...bins.map((b, i) => row(labels[i], [String(b.sentences), ...models.map((m) => (m.bins[i].bleu === null ? '–' : fmt(m.bins[i].bleu)))])),
      row('all', [String(models[0].total.sentences), ...models.map((m) => fmt(m.total.bleu))], { class: 'bl-all' })));
  const details = html('details', { class: 'bl-details' }, html('summary', {}, 'The figures as a table'), table);

  const caption = document.createElement('figcaption');
  caption.className = 'caption';
  caption.textContent = `${data.data}. Corpus BLEU (sacreBLEU's default: 13a, mixed case) of each bin's translations; n is the bin's number of sentences.`;
  root.append(legend, plot, caption, details);
  container.replaceChildren(root);
  return root;
}
