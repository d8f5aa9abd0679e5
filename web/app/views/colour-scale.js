// The heatmaps' colour scales: where a value falls on a scale (attention weights over [0, 1] by
// default, a sequential or diverging scale over a spec's range), its colour, the legend's stops
// and ticks, and the one rule for the colour of text on a coloured cell (black or white, from the
// cell's luminance). Used by the canvas map, its SVG twin and the logit lens's table.

const rgbOf = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
/**
 * The text colour on a cell of colour `rgb` (0-255): black or white, whichever contrasts more
 * with it. Their WCAG contrast ratios, (L + 0.05) / 0.05 and 1.05 / (L + 0.05) for the cell's
 * relative luminance L, are equal at L = 0.179, where both are 4.58:1: one of the two always
 * passes the 4.5:1 small text needs. The one rule for text on a coloured cell: the heatmaps'
 * canvas and SVG, and the cells of the logit lens (cellColours).
 */
const inkFor = (rgb) => (rgb.reduce((l, v, i) => l + [0.2126, 0.7152, 0.0722][i] * ((v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4), 0) > 0.179 ? '#000' : '#fff');

// ColorBrewer "Blues" (9 classes): white for 0, deep blue for 1; interpolated into 256 steps.
const STOPS = ['#f7fbff', '#deebf7', '#c6dbef', '#9ecae1', '#6baed6', '#4292c6', '#2171b5', '#08519c', '#08306b'];
// ColorBrewer "RdBu" (11 classes), red for negative, white for 0, blue for positive.
const DIVERGING = ['#67001f', '#b2182b', '#d6604d', '#f4a582', '#fddbc7', '#f7f7f7', '#d1e5f0', '#92c5de', '#4393c3', '#2166ac', '#053061'];
/**
 * The 256 colours as CSS, and as `pixels`: opaque RGBA, a 32-bit word each in the machine's byte
 * order (the cells' bitmap).
 */
function lutOf(stops) {
  const rgb = stops.map(rgbOf);
  const out = [];
  const ink = [];
  const bytes = new Uint8Array(4 * 256);
  for (let i = 0; i < 256; i++) {
    const x = (i / 255) * (rgb.length - 1);
    const j = Math.min(Math.floor(x), rgb.length - 2);
    const f = x - j;
    const c = rgb[j].map((a, k) => Math.round(a + (rgb[j + 1][k] - a) * f));
    out.push(`rgb(${c[0]},${c[1]},${c[2]})`);
    bytes.set([...c, 255], 4 * i);
    ink.push(inkFor(c));
  }
  out.pixels = new Uint32Array(bytes.buffer);
  out.ink = ink;
  return out;
}
const LUT = lutOf(STOPS);
const DIVERGING_LUT = lutOf(DIVERGING);

const tick = (v) => {
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 0.1 ? String(Number(v.toFixed(2))) : v.toPrecision(2);
};

/**
 * The colour scale of a spec: where a value falls (t in [0, 1]), its colour, the legend's
 * stops and ticks. Default: attention weights, [0, 1], Blues.
 */
export function scaleOf(spec) {
  const s = spec?.scale;
  if (!s) return { t: (v) => Math.min(1, Math.max(0, v || 0)), lut: LUT, stops: STOPS, ticks: [[0, '0'], [0.25, '0.25'], [0.5, '0.5'], [0.75, '0.75'], [1, '1']], diverging: false };
  if (s.diverging) {
    const m = Math.max(Math.abs(s.min ?? 0), Math.abs(s.max ?? 0)) || 1;
    return { t: (v) => Math.min(1, Math.max(0, ((v || 0) / m + 1) / 2)), lut: DIVERGING_LUT, stops: DIVERGING,
      ticks: [[0, tick(-m)], [0.5, '0'], [1, tick(m)]], diverging: true };
  }
  const lo = s.min ?? 0;
  const hi = s.max > lo ? s.max : lo + 1;
  return { t: (v) => Math.min(1, Math.max(0, ((v || 0) - lo) / (hi - lo))), lut: LUT, stops: STOPS,
    ticks: [0, 0.25, 0.5, 0.75, 1].map((f) => [f, tick(lo + f * (hi - lo))]), diverging: false };
}
/** The colour of value `v` on `scale` (scaleOf), as CSS. */
export const colourIn = (scale, v) => scale.lut[Math.round(scale.t(v) * 255)];
// Text on a cell: black or white from the cell colour's luminance (inkFor).
export const inkOn = (scale, v) => scale.lut.ink[Math.round(scale.t(v) * 255)];

/**
 * A cell of value `v` drawn outside a canvas (an HTML table's cell): {fill, ink}, the colour the
 * heatmaps give it on `spec`'s scale (attention weights, [0, 1], by default) and its text's colour.
 */
export function cellColours(v, spec = null) {
  const scale = scaleOf(spec);
  return { fill: colourIn(scale, v), ink: inkOn(scale, v) };
}
