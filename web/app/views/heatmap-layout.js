// Where everything of a heatmap goes, in CSS pixels (cells, labels, legend), shared by the canvas
// view (heatmap.js, heatmap-paint.js) and its SVG twin (heatmap-svg.js): the fonts and colours of
// its text, the smallest cell, text measurement, and how a value is written on its cell.

export const FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
export const FONT = `12px ${FONT_FAMILY}`;
export const BOLD = `600 12px ${FONT_FAMILY}`;
export const HIGHLIGHT = '#d94801';
export const HIGHLIGHT_TEXT = '#a63603';
export const EMPTY = '#eef0f3';
export const TEXT = '#1f2328';

/**
 * The smallest cell of a labelled map, in CSS pixels: its column labels (12 px text rotated 45°)
 * then stand 18 · sin 45° ≈ 12.7 px apart, a line of text each. A map that needs more room scrolls.
 */
export const MIN_CELL = 18;

export const newCanvas = (w, h) => (typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(w, h) : Object.assign(document.createElement('canvas'), { width: w, height: h }));

let measureCtx = null;
let measureFont = null; // (set only when it changes: a map of 512 labels measures them all)
export function measure(text, font = FONT) {
  measureCtx ??= newCanvas(1, 1).getContext('2d');
  if (measureFont !== font) measureCtx.font = measureFont = font;
  return measureCtx.measureText(text).width;
}

export const clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));

/** Where everything goes, in CSS pixels; shared by the canvas and the SVG. */
export function layout(spec, width) {
  const rows = spec.values.length;
  const cols = spec.colLabels?.length ?? Math.max(0, ...spec.values.map((r) => r.length));
  if (spec.compact) {
    const box = spec.size ?? 96;
    // (Cells may be under a pixel: the thumbnail of a long input is drawn scaled down.)
    const cw = Math.min(box / Math.max(cols, 1), 24);
    const ch = Math.min(box / Math.max(rows, 1), 24);
    return { compact: true, rows, cols, x: 0, y: 0, cw, ch, width: Math.ceil(cw * cols), height: Math.ceil(ch * rows) };
  }
  const rowLabelW = Math.ceil(Math.max(24, ...spec.rowLabels.map((t) => measure(t, BOLD)))) + 14;
  const colW = Math.max(0, ...spec.colLabels.map((t) => measure(t)));
  const maxCell = spec.maxCell ?? 52;
  // Room on the right for the last rotated column label.
  const padRight = Math.ceil(Math.max(8, colW * Math.SQRT1_2 - 8));
  const cw = Math.floor(clamp((width - rowLabelW - padRight) / Math.max(cols, 1), Math.min(MIN_CELL, maxCell), maxCell));
  const rotate = colW > cw - 6;
  const colLabelH = rotate ? Math.ceil(colW * Math.SQRT1_2 + 16) : 22;
  const ch = cw;
  const gridW = cw * cols;
  let legend = null;
  if (spec.legend !== false) {
    const room = Math.max(rowLabelW + gridW, width) - rowLabelW - 8;
    const w = clamp(gridW, 120, 260);
    // The legend's caption goes right of the bar, or under it when the map is narrow.
    const below = w + 130 > room;
    legend = { x: rowLabelW, y: colLabelH + ch * rows + 18, w: below ? Math.min(w, Math.max(80, room)) : w, h: 10, below };
  }
  return {
    compact: false, rows, cols, rotate, rowLabelW, colLabelH, x: rowLabelW, y: colLabelH, cw, ch, legend,
    width: Math.ceil(Math.max(rowLabelW + gridW + (rotate ? padRight : 8),
      legend ? rowLabelW + (legend.below ? Math.max(legend.w, measure(spec.legendLabel ?? 'attention weight')) + 8 : legend.w + 130) : 0)),
    height: Math.ceil(colLabelH + ch * rows + (legend ? (legend.below ? 76 : 58) : 6)),
  };
}

export const valueAt = (spec, r, c) => (c < spec.values[r].length ? spec.values[r][c] : undefined);
export const fmt = (v) => (Math.abs(v) >= 9.95 ? v.toFixed(1) : Math.abs(v) >= 0.995 ? v.toFixed(2) : v.toFixed(2).replace(/^(-?)0/, '$1'));
