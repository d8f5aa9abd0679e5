// The Training panel's loss curve: an SVG built with DOM calls (no HTML strings), loss per epoch.
// A view: it takes the numbers ([{epoch, loss}]) and knows nothing of the model.
import { counted } from '../util/html.js';

const SVG = 'http://www.w3.org/2000/svg';
const W = 420;
const H = 160;
const PAD = { left: 44, right: 10, top: 10, bottom: 26 };

/** An SVG element with these attributes (and text). */
export function el(name, attrs = {}, text = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== null) e.textContent = text;
  return e;
}

/**
 * An SVG of the curves' frame: axes from 0 to `maxEpoch` and 0 to `maxLoss`, labelled, the
 * y axis named `yLabel`, room for a legend above when `top` is larger. Returns {svg, x, y}: the
 * element and the epoch and loss to pixel maps.
 */
export function lossFrame({ maxEpoch, maxLoss, yLabel, ariaLabel, top = PAD.top }) {
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': ariaLabel });
  const x0 = PAD.left;
  const x1 = W - PAD.right;
  const y0 = H - PAD.bottom;
  const y1 = top;
  svg.append(el('line', { class: 'axis', x1: x0, y1: y0, x2: x1, y2: y0 }), el('line', { class: 'axis', x1: x0, y1: y0, x2: x0, y2: y1 }));
  svg.append(
    el('text', { x: x0 - 4, y: y1 + 8, 'text-anchor': 'end' }, maxLoss.toFixed(2)),
    el('text', { x: x0 - 4, y: y0, 'text-anchor': 'end' }, '0'),
    el('text', { x: x1, y: H - 8, 'text-anchor': 'end' }, `epoch ${maxEpoch}`),
    el('text', { x: x0, y: H - 8 }, yLabel),
  );
  return { svg, x: (epoch) => x0 + ((x1 - x0) * epoch) / maxEpoch, y: (loss) => y0 - ((y0 - y1) * loss) / maxLoss };
}

/** Draws `points` ([{epoch, loss}], epochs from 1) into `container`, replacing what was there. */
export function drawLossCurve(container, points) {
  const { svg, x, y } = lossFrame({
    maxEpoch: Math.max(1, ...points.map((p) => p.epoch)),
    maxLoss: Math.max(1e-9, ...points.map((p) => p.loss)),
    yLabel: 'loss per target token',
    ariaLabel: points.length
      ? `Training loss over ${counted(points.length, 'epoch')}, from ${points[0].loss.toFixed(3)} to ${points.at(-1).loss.toFixed(3)}`
      : 'Training loss: no epoch yet',
  });
  if (points.length) {
    const line = el('polyline', { class: 'loss', points: points.map((p) => `${x(p.epoch).toFixed(1)},${y(p.loss).toFixed(1)}`).join(' ') });
    svg.append(line);
    const last = points.at(-1);
    svg.append(el('circle', { cx: x(last.epoch).toFixed(1), cy: y(last.loss).toFixed(1), r: 3, fill: '#1f6feb' }));
  }
  container.replaceChildren(svg);
}
