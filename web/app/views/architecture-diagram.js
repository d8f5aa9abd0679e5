// A small architecture diagram: blocks in columns (read top to bottom, an arrow between
// neighbours) and links across columns, as an SVG built with DOM calls (every label is a text
// node: model files are untrusted). It knows nothing of model families: web/app/model/architecture.js
// turns a model's description into {blocks, links}.

const NS = 'http://www.w3.org/2000/svg';
const COL_W = 300;
const GAP_X = 90;
const BOX_H = 44;
const GAP_Y = 20;
const TOP = 26;
let diagrams = 0; // each diagram's arrow-head marker has its own id

function svgEl(name, attrs = {}, text) {
  const el = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** An arrow from (x1, y1) to (x2, y2), with an optional label at its middle. */
function arrow(g, marker, x1, y1, x2, y2, label) {
  g.append(svgEl('line', { x1, y1, x2, y2, stroke: '#57606a', 'stroke-width': 1.5, 'marker-end': `url(#${marker})` }));
  if (label) {
    g.append(svgEl('text', { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 6, 'text-anchor': 'middle', 'font-size': 11, fill: '#57606a', class: 'arch-link' }, label));
  }
}

/**
 * The diagram of `arch` ({blocks: [{id, column, label, detail}], links: [{from, to, label}]}) as
 * an <svg> element; `title` is its accessible name.
 */
export function architectureSVG(arch, title) {
  const columns = [...new Set(arch.blocks.map((b) => b.column))];
  const place = new Map(); // id -> {x, y}
  const rows = Math.max(1, ...columns.map((c) => arch.blocks.filter((b) => b.column === c).length));
  const width = columns.length * COL_W + (columns.length - 1) * GAP_X + 2;
  const height = TOP + rows * (BOX_H + GAP_Y) + 2;
  const svg = svgEl('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'font-family': 'system-ui, sans-serif', class: 'arch-svg' });
  svg.append(svgEl('title', {}, title));
  const defs = svgEl('defs');
  const markerId = `arch-arrow-${++diagrams}`;
  const marker = svgEl('marker', { id: markerId, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
  marker.append(svgEl('path', { d: 'M0 0L10 5L0 10z', fill: '#57606a' }));
  defs.append(marker);
  svg.append(defs);
  columns.forEach((column, c) => {
    const x = 1 + c * (COL_W + GAP_X);
    svg.append(svgEl('text', { x: x + COL_W / 2, y: 16, 'text-anchor': 'middle', 'font-size': 12, 'font-weight': 600, fill: '#1f2328', class: 'arch-column' }, column));
    const blocks = arch.blocks.filter((b) => b.column === column);
    blocks.forEach((b, i) => {
      const y = TOP + i * (BOX_H + GAP_Y);
      place.set(b.id, { x, y });
      const g = svgEl('g', { class: 'arch-block', 'data-block': b.id });
      g.append(svgEl('title', {}, `${b.label}: ${b.detail}`));
      g.append(svgEl('rect', { x, y, width: COL_W, height: BOX_H, rx: 7, fill: b.column === columns[0] ? '#deebf7' : '#efedf5', stroke: '#8c959f' }));
      g.append(svgEl('text', { x: x + 10, y: y + 18, 'font-size': 12, 'font-weight': 600, fill: '#1f2328' }, b.label));
      g.append(svgEl('text', { x: x + 10, y: y + 34, 'font-size': 11, fill: '#3d444d' }, b.detail));
      svg.append(g);
      if (i > 0) arrow(svg, markerId, x + COL_W / 2, y - GAP_Y, x + COL_W / 2, y - 1);
    });
  });
  for (const link of arch.links) {
    const a = place.get(link.from);
    const b = place.get(link.to);
    if (!a || !b) continue;
    const leftToRight = a.x < b.x;
    arrow(svg, markerId, leftToRight ? a.x + COL_W : a.x, a.y + BOX_H / 2, leftToRight ? b.x - 1 : b.x + COL_W + 1, b.y + BOX_H / 2, link.label);
  }
  return svg;
}
