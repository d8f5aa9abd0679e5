// The induction-heads preset's two losses over training: the next-token loss on the probes' first
// half (random symbols: it stays near chance) and on their repeated half (it falls when an
// induction head forms). An SVG built with DOM calls (no HTML strings), in the Training panel's
// loss-curve frame. A view: it takes the numbers and knows nothing of the model.
import { el, lossFrame } from './loss-curve.js';

/** The two series, in the order they are drawn and named in the legend. */
export const HALVES = Object.freeze([
  { key: 'lossFirstHalf', label: 'first half', className: 'loss-first' },
  { key: 'lossRepeatedHalf', label: 'repeated half', className: 'loss-repeated' },
]);

/**
 * Draws `points` ([{epoch, lossFirstHalf, lossRepeatedHalf}], epoch 0: the untrained model) into
 * `container`, replacing what was there.
 */
export function drawHalfLossCurves(container, points) {
  const last = points.at(-1);
  const { svg, x, y } = lossFrame({
    maxEpoch: Math.max(1, ...points.map((p) => p.epoch)),
    maxLoss: Math.max(1e-9, ...points.flatMap((p) => HALVES.map((s) => p[s.key]))),
    yLabel: 'nats per token',
    top: 24,
    ariaLabel: last
      ? `Loss on the probes after epoch ${last.epoch}: first half ${last.lossFirstHalf.toFixed(3)}, repeated half ${last.lossRepeatedHalf.toFixed(3)} nats per token`
      : 'Loss on the probes: not trained yet',
  });
  HALVES.forEach((s, i) => {
    const lx = 52 + i * 130;
    svg.append(el('line', { class: s.className, x1: lx, y1: 10, x2: lx + 18, y2: 10 }), el('text', { x: lx + 22, y: 14 }, s.label));
    if (points.length) {
      svg.append(el('polyline', { class: s.className, points: points.map((p) => `${x(p.epoch).toFixed(1)},${y(p[s.key]).toFixed(1)}`).join(' ') }));
    }
  });
  container.replaceChildren(svg);
}
