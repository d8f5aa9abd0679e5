// Canvas heatmaps (one canvas per map, however many cells), with a colour legend, exact values
// on hover (a tooltip whose text and data-value hold the number as the engine returned it),
// keyboard reading (focus the map, arrow keys move the cursor, a polite live region reads the
// cell), the same numbers as a visually hidden <table> for screen readers, and an SVG twin for
// export.
//
// Long inputs: a labelled map's cells are never smaller than MIN_CELL, where its labels stay
// readable; a map wider than its box scrolls sideways, and one taller than TALL_MAP scrolls
// inside a box of the window's height. The canvas is only the box's size and shows the part
// scrolled to, the row labels and column labels kept in view (sticky); the cells are one
// drawImage of a bitmap of a pixel per cell, so a 512 × 512 map costs what a small one does.
//
//   const map = new Heatmap(container, { onSelect: (row, col) => … });
//   map.set({ values: [Float32Array, …], rowLabels, colLabels, highlightRow, rowTitle, colTitle });
//   mapSVG(map)  // the same picture as an SVG document (string)
//
// `values` is a list of rows; a row shorter than colLabels leaves its last cells empty (the
// decoder's self-attention only sees earlier positions). Colours map [0, 1] (attention weights)
// unless the spec has `scale: {min, max, diverging}`: values that are not weights (‖α·f(x)‖,
// Δ log-likelihood, cosines, positional encodings) get a sequential scale over [min, max] or a
// diverging one (red below 0, blue above, white at 0) over [-max(|min|, |max|), +that].
import { esc, setText } from '../util/html.js';

export const HEATMAP_CSS = `
.hm { position: relative; max-width: 100%; }
.hm-scroll { overflow: auto hidden; max-width: 100%; position: relative; }
.hm-scroll.hm-tall { overflow: auto; }
.hm canvas { display: block; position: sticky; left: 0; top: 0; }
/* The canvas is as wide as its box; the focus ring goes around the map (its cells) only. */
.hm canvas:focus-visible { outline: none; }
.hm-ring { position: absolute; pointer-events: none; box-sizing: border-box; border: 3px solid #1f6feb; border-radius: 3px; display: none; }
.hm-scroll:has(canvas:focus-visible) .hm-ring { display: block; }
.hm-tip { position: fixed; z-index: 1000; pointer-events: none; background: #161b22; color: #fff;
  font: 12px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; padding: 6px 9px; border-radius: 6px;
  box-sizing: border-box; width: max-content; max-width: min(24em, calc(100vw - 8px)); overflow-wrap: anywhere;
  box-shadow: 0 2px 10px rgba(0,0,0,.25); }
.hm-tip b { font-weight: 600; }
.hm-tip .v { font-size: 15px; font-variant-numeric: tabular-nums; }
.hm-tip .exact { color: #c9d1d9; font-variant-numeric: tabular-nums; }
.hm-cursor { position: absolute; z-index: 10; pointer-events: none; box-sizing: border-box;
  border: 2px solid #111; box-shadow: inset 0 0 0 1px #fff; }
.hm-tip[hidden], .hm-cursor[hidden] { display: none; }
/* For screen readers only: the live readout of the keyboard's cell and the table of values. */
.hm-sr { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; border: 0; overflow: hidden;
  clip-path: inset(50%); white-space: nowrap; }
`;

export const FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const FONT = `12px ${FONT_FAMILY}`;
const BOLD = `600 12px ${FONT_FAMILY}`;
const HIGHLIGHT = '#d94801';
const HIGHLIGHT_TEXT = '#a63603';
const EMPTY = '#eef0f3';
const TEXT = '#1f2328';

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

/**
 * The smallest cell of a labelled map, in CSS pixels: its column labels (12 px text rotated 45°)
 * then stand 18 · sin 45° ≈ 12.7 px apart, a line of text each. A map that needs more room scrolls.
 */
export const MIN_CELL = 18;
/** A map taller than this (CSS pixels) scrolls inside a box as high as most of the window. */
const TALL_MAP = 2400;
const tallBoxHeight = () => Math.max(420, Math.round(0.75 * window.innerHeight));
/** The visually hidden table holds maps of up to this many cells; larger ones are read by keyboard. */
const TABLE_CELLS = 2500;

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
const colourIn = (scale, v) => scale.lut[Math.round(scale.t(v) * 255)];
// Text on a cell: black or white from the cell colour's luminance (inkFor).
const inkOn = (scale, v) => scale.lut.ink[Math.round(scale.t(v) * 255)];

/**
 * A cell of value `v` drawn outside a canvas (an HTML table's cell): {fill, ink}, the colour the
 * heatmaps give it on `spec`'s scale (attention weights, [0, 1], by default) and its text's colour.
 */
export function cellColours(v, spec = null) {
  const scale = scaleOf(spec);
  return { fill: colourIn(scale, v), ink: inkOn(scale, v) };
}

const newCanvas = (w, h) => (typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(w, h) : Object.assign(document.createElement('canvas'), { width: w, height: h }));

let measureCtx = null;
let measureFont = null; // (set only when it changes: a map of 512 labels measures them all)
function measure(text, font = FONT) {
  measureCtx ??= newCanvas(1, 1).getContext('2d');
  if (measureFont !== font) measureCtx.font = measureFont = font;
  return measureCtx.measureText(text).width;
}

const clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));

/** Where everything goes, in CSS pixels; shared by the canvas and the SVG. */
function layout(spec, width) {
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

const valueAt = (spec, r, c) => (c < spec.values[r].length ? spec.values[r][c] : undefined);
const fmt = (v) => (Math.abs(v) >= 9.95 ? v.toFixed(1) : Math.abs(v) >= 0.995 ? v.toFixed(2) : v.toFixed(2).replace(/^(-?)0/, '$1'));

/**
 * The colours of a map's labels, legend text and empty cells, from the CSS around the map (its
 * `color`, `--hm-empty` and `--hm-highlight-ink`): the widget's theme (light, dark, --attnscope-*) reaches the canvas.
 * Cell colours are the data's scale and never change; text on cells is black or white (inkOn).
 */
function themeOf(el) {
  const style = getComputedStyle(el);
  const prop = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
  return { text: style.color || TEXT, empty: prop('--hm-empty', EMPTY), highlight: prop('--hm-highlight-ink', HIGHLIGHT_TEXT) };
}

/** The map's cells as a bitmap of one pixel per cell, in the scale's colours (transparent: no value). */
function cellBitmap(spec, L) {
  const scale = scaleOf(spec);
  const lut = scale.lut.pixels;
  const cols = Math.max(1, L.cols);
  const image = new ImageData(cols, Math.max(1, L.rows));
  const px = new Uint32Array(image.data.buffer);
  for (let r = 0; r < L.rows; r++) {
    const row = spec.values[r];
    const at = r * cols;
    for (let c = 0; c < Math.min(row.length, L.cols); c++) px[at + c] = lut[Math.round(scale.t(row[c]) * 255)];
  }
  const bitmap = newCanvas(image.width, image.height);
  bitmap.getContext('2d').putImageData(image, 0, 0);
  return bitmap;
}

/**
 * The rows and columns of a map in a view `w` × `h` CSS pixels scrolled to (sx, sy): [r0, r1)
 * and [c0, c1), clamped to the map.
 */
function visibleCells(L, { sx, sy, w, h }) {
  return {
    r0: clamp(Math.floor(sy / L.ch), 0, L.rows), r1: clamp(Math.ceil((sy + h - L.y) / L.ch), 0, L.rows),
    c0: clamp(Math.floor(sx / L.cw), 0, L.cols), c1: clamp(Math.ceil((sx + w - L.x) / L.cw), 0, L.cols),
  };
}

/**
 * Draws the part of the map a view shows: `view` = {sx, sy, w, h, cells} (the scroll offset, the
 * view's size in CSS pixels, the cells' bitmap). Row labels stay at the left and column labels at
 * the top whatever the scroll; the legend stays at the left under the map.
 */
function draw(ctx, spec, L, theme, view) {
  const { sx, sy, w, h } = view;
  const scale = scaleOf(spec);
  ctx.clearRect(0, 0, w, ctx.canvas.height); // to the bitmap's bottom: a kept one holds the last map below this one
  const { r0, r1, c0, c1 } = visibleCells(L, view);
  const gx = L.x - sx; // where cell (0, 0) is on the canvas
  const gy = L.y - sy;
  const clipTo = (x, y, cw, ch) => {
    ctx.save();
    ctx.beginPath();
    ctx.rect(x, y, cw, ch);
    ctx.clip();
  };
  clipTo(L.x, L.y, w - L.x, h - L.y);
  if (r1 > r0 && c1 > c0) {
    // Empty cells (no value) show the colour under the bitmap. Scaled up, each cell is a block of
    // its colour; scaled down (a thumbnail), cells are averaged.
    ctx.fillStyle = theme.empty;
    ctx.fillRect(gx + c0 * L.cw, gy + r0 * L.ch, (c1 - c0) * L.cw, (r1 - r0) * L.ch);
    ctx.imageSmoothingEnabled = L.cw < 1 || L.ch < 1;
    ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(view.cells, c0, r0, c1 - c0, r1 - r0, gx + c0 * L.cw, gy + r0 * L.ch, (c1 - c0) * L.cw, (r1 - r0) * L.ch);
  }
  if (!L.compact && L.cw >= 34) {
    ctx.textBaseline = 'middle';
    ctx.font = `11px ${FONT_FAMILY}`;
    ctx.textAlign = 'center';
    for (let r = r0; r < r1; r++) {
      for (let c = c0; c < c1; c++) {
        const v = valueAt(spec, r, c);
        if (v === undefined) continue;
        ctx.fillStyle = inkOn(scale, v);
        ctx.fillText(fmt(v), gx + (c + 0.5) * L.cw, gy + (r + 0.5) * L.ch);
      }
    }
  }
  const hr = spec.highlightRow ?? -1;
  if (hr >= 0 && hr < L.rows) {
    ctx.strokeStyle = HIGHLIGHT;
    ctx.lineWidth = L.compact ? 1.5 : 2.5;
    ctx.strokeRect(gx + 1, gy + hr * L.ch + 1, L.cw * L.cols - 2, L.ch - 2);
  }
  ctx.restore();
  if (L.compact) return;
  // Row labels (right-aligned), column labels (horizontal or rotated 45°), each in its strip.
  ctx.textBaseline = 'middle';
  clipTo(0, L.y, L.x, h - L.y);
  ctx.textAlign = 'right';
  for (let r = r0; r < r1; r++) {
    ctx.font = r === hr ? BOLD : FONT;
    ctx.fillStyle = r === hr ? theme.highlight : theme.text;
    ctx.fillText(spec.rowLabels[r], L.x - 8, gy + (r + 0.5) * L.ch);
  }
  ctx.restore();
  clipTo(L.x, 0, w - L.x, L.y);
  ctx.font = FONT;
  ctx.fillStyle = theme.text;
  // A rotated label reaches right of its column: those of columns scrolled off the left may show.
  for (let c = Math.max(0, c0 - (L.rotate ? Math.ceil(L.colLabelH / L.cw) : 0)); c < c1; c++) {
    const t = spec.colLabels[c];
    const cx = gx + (c + 0.5) * L.cw;
    if (L.rotate) {
      ctx.save();
      ctx.translate(cx - 3, L.y - 7);
      ctx.rotate(-Math.PI / 4);
      ctx.textAlign = 'left';
      ctx.fillText(t, 0, 0);
      ctx.restore();
    } else {
      ctx.textAlign = 'center';
      ctx.fillText(t, cx, L.y - 11);
    }
  }
  ctx.restore();
  if (L.legend) {
    const g = { ...L.legend, y: L.legend.y - sy };
    const grad = ctx.createLinearGradient(g.x, 0, g.x + g.w, 0);
    scale.stops.forEach((s, i) => grad.addColorStop(i / (scale.stops.length - 1), s));
    ctx.fillStyle = grad;
    ctx.fillRect(g.x, g.y, g.w, g.h);
    ctx.strokeStyle = '#8c959f';
    ctx.lineWidth = 1;
    ctx.strokeRect(g.x + 0.5, g.y + 0.5, g.w - 1, g.h - 1);
    ctx.fillStyle = theme.text;
    ctx.font = FONT;
    ctx.textAlign = 'center';
    for (const [t, label] of scale.ticks) {
      ctx.fillRect(g.x + t * (g.w - 1), g.y + g.h, 1, 4);
      ctx.fillText(label, clamp(g.x + t * g.w, g.x + 4, g.x + g.w - 4), g.y + g.h + 13);
    }
    ctx.textAlign = 'left';
    ctx.fillText(spec.legendLabel ?? 'attention weight', g.below ? g.x : g.x + g.w + 10, g.below ? g.y + g.h + 31 : g.y + g.h / 2);
  }
}


/** The SVG elements of a map laid out at (dx, dy); used by heatmapSVG and composite exports. */
export function heatmapSVGBody(spec, width, dx = 0, dy = 0, idPrefix = 'g') {
  const L = layout(spec, width);
  const scale = scaleOf(spec);
  const out = [`<g transform="translate(${dx} ${dy})" font-family='${FONT_FAMILY}' font-size="12" fill="${TEXT}">`];
  const showText = !L.compact && L.cw >= 34;
  for (let r = 0; r < L.rows; r++) {
    for (let c = 0; c < L.cols; c++) {
      const v = valueAt(spec, r, c);
      const x = L.x + c * L.cw;
      const y = L.y + r * L.ch;
      out.push(`<rect x="${x}" y="${y}" width="${L.cw}" height="${L.ch}" fill="${v === undefined ? EMPTY : colourIn(scale, v)}">${v === undefined ? '' : `<title>${esc(spec.rowLabels?.[r] ?? r)} → ${esc(spec.colLabels?.[c] ?? c)}: ${v}</title>`}</rect>`);
      if (showText && v !== undefined) {
        out.push(`<text x="${x + L.cw / 2}" y="${y + L.ch / 2}" text-anchor="middle" dominant-baseline="central" font-size="11" fill="${inkOn(scale, v)}">${fmt(v)}</text>`);
      }
    }
  }
  const hr = spec.highlightRow ?? -1;
  if (hr >= 0 && hr < L.rows) {
    out.push(`<rect x="${L.x + 1}" y="${L.y + hr * L.ch + 1}" width="${L.cw * L.cols - 2}" height="${L.ch - 2}" fill="none" stroke="${HIGHLIGHT}" stroke-width="${L.compact ? 1.5 : 2.5}"/>`);
  }
  if (!L.compact) {
    spec.rowLabels.forEach((t, r) => {
      const hi = r === hr;
      out.push(`<text x="${L.x - 8}" y="${L.y + (r + 0.5) * L.ch}" text-anchor="end" dominant-baseline="central"${hi ? ` font-weight="600" fill="${HIGHLIGHT_TEXT}"` : ''}>${esc(t)}</text>`);
    });
    spec.colLabels.forEach((t, c) => {
      const cx = L.x + (c + 0.5) * L.cw;
      out.push(L.rotate
        ? `<text transform="translate(${cx - 3} ${L.y - 7}) rotate(-45)">${esc(t)}</text>`
        : `<text x="${cx}" y="${L.y - 11}" text-anchor="middle" dominant-baseline="central">${esc(t)}</text>`);
    });
    if (L.legend) out.push(...legendParts(scale, L.legend, spec.legendLabel, idPrefix));
  }
  out.push('</g>');
  return { body: out.join('\n'), width: L.width, height: L.height };
}

/** The colour legend's SVG elements: bar g = {x, y, w, h, below}, ticks and caption. */
function legendParts(scale, g, label, idPrefix) {
  const out = [`<defs><linearGradient id="${idPrefix}-legend">${scale.stops.map((s, i) => `<stop offset="${i / (scale.stops.length - 1)}" stop-color="${s}"/>`).join('')}</linearGradient></defs>`];
  out.push(`<rect x="${g.x}" y="${g.y}" width="${g.w}" height="${g.h}" fill="url(#${idPrefix}-legend)" stroke="#8c959f"/>`);
  for (const [t, tickLabel] of scale.ticks) {
    out.push(`<rect x="${g.x + t * (g.w - 1)}" y="${g.y + g.h}" width="1" height="4"/>`);
    out.push(`<text x="${clamp(g.x + t * g.w, g.x + 4, g.x + g.w - 4)}" y="${g.y + g.h + 13}" text-anchor="middle" dominant-baseline="central">${tickLabel}</text>`);
  }
  out.push(`<text x="${g.below ? g.x : g.x + g.w + 10}" y="${g.below ? g.y + g.h + 31 : g.y + g.h / 2}" dominant-baseline="central">${esc(label ?? 'attention weight')}</text>`);
  return out;
}

/** A spec's colour legend alone, its bar `w` wide at (x, y) (for sheets of thumbnails); 36 px high. */
export function legendSVG(spec, x, y, w = 240, idPrefix = 'sheet') {
  const parts = legendParts(scaleOf(spec), { x, y, w, h: 10, below: false }, spec.legendLabel, idPrefix);
  return `<g class="legend" font-family='${FONT_FAMILY}' font-size="12" fill="${TEXT}">${parts.join('\n')}</g>`;
}

const TITLE_FONT = `600 15px ${FONT_FAMILY}`;
const TITLE_LINE = 20;

/**
 * A figure's title as SVG text lines, wrapped at word boundaries to `width` (never clipped: a
 * word longer than the width widens the figure). Returns {body, width, height}.
 */
export function titleSVG(title, width, x = 0, y = 0) {
  const lines = [];
  for (const word of String(title).split(/\s+/).filter(Boolean)) {
    const longer = `${lines.at(-1)} ${word}`;
    if (lines.length && measure(longer, TITLE_FONT) <= width) lines[lines.length - 1] = longer;
    else lines.push(word);
  }
  const widest = Math.max(0, ...lines.map((l) => Math.ceil(measure(l, TITLE_FONT)) + 2));
  const body = lines.map((l, i) => `<text class="title" x="${x}" y="${y + 16 + i * TITLE_LINE}" font-family='${FONT_FAMILY}' font-size="15" font-weight="600" fill="${TEXT}">${esc(l)}</text>`).join('\n');
  return { body, width: Math.max(width, widest), height: lines.length ? lines.length * TITLE_LINE + 8 : 0 };
}

/** A standalone SVG document of a map, with an optional title (wrapped to the map's width). */
export function heatmapSVG(spec, width, title) {
  const probe = heatmapSVGBody(spec, width, 0, 0);
  const head = title ? titleSVG(title, Math.max(probe.width, 320)) : { body: '', width: 0, height: 0 };
  const { body, width: w, height: h } = heatmapSVGBody(spec, width, 0, head.height);
  return svgDocument(Math.max(w, head.width), h + head.height, head.body + body);
}

export function svgDocument(width, height, body) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.ceil(width)}" height="${Math.ceil(height)}" viewBox="0 0 ${Math.ceil(width)} ${Math.ceil(height)}">\n<rect width="100%" height="100%" fill="#fff"/>\n${body}\n</svg>\n`;
}

/**
 * A drawn map as a standalone SVG document, as drawn now, with an optional title. (Functions, not
 * methods of Heatmap: the widget, which exports nothing, leaves the SVG code out of its build.)
 */
export const mapSVG = (map, title) => heatmapSVG(map.spec, map.width, title);

/** A drawn map's SVG elements at (x, y): {body, width, height} (for composite exports). */
export const mapSVGBody = (map, x, y, idPrefix) => heatmapSVGBody(map.spec, map.width, x, y, idPrefix);

// canvas -> its Heatmap (composite exports find the maps of a pane). A property under a registered
// symbol, not a module's WeakMap: the page runs a bundle of this module (web/page.js), and a
// script that imports the source (the tests, a console) has another copy of it; both see the map.
const DRAWN = Symbol.for('attnscope.heatmap');

/** The Heatmap drawing `canvas`, or undefined. */
export const heatmapOf = (canvas) => canvas?.[DRAWN];

export class Heatmap {
  #spec = null;
  #layout = null;
  #cursor = null; // [row, col] read by keyboard
  #boxWidth; // the box's clientWidth when the ResizeObserver last saw it (0: hidden then, read again)
  #theme = null; // themeOf(root), read where style is fresh (null: read at the next draw)
  #cells = null; // the cells' bitmap (cellBitmap), made at the first draw of a spec
  #view = { sx: 0, sy: 0, w: 0, h: 0 }; // the part of the map the canvas shows (CSS pixels)
  #scrolled = [0, 0]; // the box's scrollLeft and scrollTop, as its last scroll event left them
  #opts;

  constructor(container, opts = {}) {
    this.#opts = opts;
    this.root = document.createElement('div');
    this.root.className = 'hm';
    this.scroll = document.createElement('div');
    this.scroll.className = 'hm-scroll';
    this.canvas = document.createElement('canvas');
    this.canvas.tabIndex = opts.focusable === false ? -1 : 0;
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-keyshortcuts', 'ArrowUp ArrowDown ArrowLeft ArrowRight');
    this.canvas[DRAWN] = this;
    // The tooltip is for the eyes (it follows the mouse too); the readout says the keyboard's cell.
    this.tip = document.createElement('div');
    this.tip.className = 'hm-tip';
    this.tip.setAttribute('aria-hidden', 'true');
    this.tip.hidden = true;
    this.readout = document.createElement('p');
    this.readout.className = 'hm-sr hm-readout';
    this.readout.setAttribute('aria-live', 'polite');
    this.readout.setAttribute('aria-atomic', 'true');
    // A table ignores width and overflow: the visually hidden box is a div around it.
    this.tableBox = document.createElement('div');
    this.tableBox.className = 'hm-sr';
    this.table = document.createElement('table');
    this.table.className = 'hm-table';
    this.tableBox.append(this.table);
    this.box = document.createElement('div');
    this.box.className = 'hm-cursor';
    this.box.hidden = true;
    this.ring = document.createElement('div');
    this.ring.className = 'hm-ring';
    this.ring.setAttribute('aria-hidden', 'true');
    // Gives the scroll box the map's size when the canvas shows only part of it.
    this.sizer = document.createElement('div');
    this.sizer.className = 'hm-sizer';
    this.scroll.append(this.canvas, this.sizer, this.ring);
    this.root.append(this.scroll, this.box, this.tip, this.readout, this.tableBox);
    container.append(this.root);

    this.canvas.addEventListener('mousemove', (e) => this.#hover(e.offsetX, e.offsetY));
    this.canvas.addEventListener('mouseleave', () => this.#hide());
    this.canvas.addEventListener('click', (e) => {
      const cell = this.#cellAt(e.offsetX, e.offsetY);
      opts.onSelect?.(cell?.[0] ?? -1, cell?.[1] ?? -1);
    });
    this.canvas.addEventListener('keydown', (e) => this.#key(e));
    this.canvas.addEventListener('blur', () => { this.#cursor = null; this.#hide(); });
    // (Read here, not at each draw: reading scrollLeft lays the page out.)
    this.scroll.addEventListener('scroll', () => {
      this.#scrolled = [this.scroll.scrollLeft, this.scroll.scrollTop];
      this.#hide();
      this.#paint();
    });
    // The tooltip is position: fixed (no scroll box clips it), so any scrolling hides it.
    this.onScroll = () => { if (!this.tip.hidden) this.#hide(); };
    window.addEventListener('scroll', this.onScroll, { capture: true, passive: true });
    // The box's width and the theme are read here, where layout and style are fresh: a draw
    // inside a step's render (after other panels wrote the page) then forces no style
    // recalculation or layout of the whole page. Only a new width lays the map out anew: a map
    // that grew a row (a press of Next) is already drawn.
    this.resizer = new ResizeObserver(() => {
      this.#theme = themeOf(this.root);
      if (this.#boxWidth !== (this.#boxWidth = this.root.clientWidth)) this.#draw();
    });
    this.resizer.observe(this.root);
    // The label colours follow the theme: redraw when the colour scheme flips.
    this.scheme = window.matchMedia?.('(prefers-color-scheme: dark)');
    this.onScheme = () => {
      this.#theme = null;
      this.#draw();
    };
    this.scheme?.addEventListener?.('change', this.onScheme);
  }

  /** Draws a new map. */
  set(spec) {
    this.#spec = spec;
    this.#cells = null;
    this.canvas.setAttribute('aria-label', spec.ariaLabel ?? 'attention heatmap');
    if (this.#cursor && (this.#cursor[0] >= spec.values.length)) this.#cursor = null;
    this.#draw();
    this.#queueTable();
  }

  /**
   * The table follows the map in the task after the frame that shows it, not in the same task:
   * it is a layout of its own (a cell per row and column, table layout over all of them), and
   * in a press of Next at step 30 it was most of the frame's layout (Chromium trace: 274 dirty
   * objects, 5.5 ms): click -> painted 30.3 -> 19.5 ms median (tests/bench/page_latency.mjs
   * --presses-only, with the table left out). Maps set faster than frames fill it once, with the
   * latest spec. `data-table-pending` on the map's root says a fill is due (tests wait for it).
   */
  #queueTable() {
    if (this.root.dataset.tablePending) return;
    this.root.dataset.tablePending = 'true';
    requestAnimationFrame(() => setTimeout(() => {
      delete this.root.dataset.tablePending;
      this.#fillTable();
    }));
  }

  /**
   * The map's numbers as a table (DOM APIs, text only): a header row of columns, a row per query.
   * Its cells are kept and only changed text is written: a press of Next adds a row to a map of
   * many, and rebuilding every cell was most of the step's time (tests/bench/page_latency.mjs).
   */
  #fillTable() {
    const spec = this.#spec;
    const rows = spec.values.length;
    const cols = spec.colLabels?.length ?? Math.max(0, ...spec.values.map((r) => r.length));
    const t = this.table;
    if (!t.tBodies.length) {
      t.createCaption();
      t.createTHead();
      t.createTBody();
    }
    // `tr` gets `n` cells: the first a `first`, the others `tag`; its <th> cells head a `scope`.
    const fit = (tr, n, first, tag, scope) => {
      while (tr.cells.length > n) tr.lastChild.remove();
      while (tr.cells.length < n) {
        const el = document.createElement(tr.cells.length ? tag : first);
        if (el.tagName === 'TH') el.scope = scope;
        tr.append(el);
      }
      return tr.cells;
    };
    setText(t.caption, `${spec.ariaLabel ?? 'attention heatmap'} (values: ${spec.legendLabel ?? 'attention weight'})`);
    if (rows * cols > TABLE_CELLS) {
      // Thousands of cells would be most of a page's layout, and no way to read a map.
      t.caption.append(`: ${rows} × ${cols} values; focus the map and read them with the arrow keys`);
      t.tHead.replaceChildren();
      t.tBodies[0].replaceChildren();
      return;
    }
    const head = fit(t.tHead.rows[0] ?? t.tHead.insertRow(), cols + 1, 'td', 'th', 'col');
    for (let c = 0; c < cols; c++) setText(head[c + 1], spec.colLabels?.[c] || `column ${c + 1}`); // (some maps label every other column)
    const body = t.tBodies[0];
    while (body.rows.length > rows) body.lastChild.remove();
    for (let r = 0; r < rows; r++) {
      const cells = fit(body.rows[r] ?? body.insertRow(), cols + 1, 'th', 'td', 'row');
      setText(cells[0], spec.rowLabels?.[r] || `row ${r + 1}`);
      for (let c = 0; c < cols; c++) {
        const v = valueAt(spec, r, c);
        setText(cells[c + 1], v === undefined ? '—' : v.toFixed(4));
      }
    }
  }

  get spec() { return this.#spec; }

  /** The width the map is laid out at (its SVG twin, mapSVG, uses the same). */
  get width() { return this.#width(); }

  #width() { return this.#spec?.compact ? 0 : Math.max(120, this.#boxWidth || this.root.clientWidth || 600); }

  #draw() {
    const spec = this.#spec;
    if (!spec) return;
    const boxWidth = this.#width();
    const L = layout(spec, boxWidth);
    this.#layout = L;
    // The canvas is the map, or (a long input) the part of it the scroll box shows.
    const tall = !L.compact && L.height > TALL_MAP;
    const h = tall ? tallBoxHeight() : L.height;
    this.scroll.classList.toggle('hm-tall', tall);
    this.scroll.style.height = tall ? `${h}px` : '';
    const w = !L.compact && (tall || L.width > boxWidth) ? Math.min(L.width, this.scroll.clientWidth || boxWidth) : L.width;
    Object.assign(this.sizer.style, { width: `${L.width}px`, height: `${L.height - h}px` });
    const dpr = window.devicePixelRatio || 1;
    const wpx = Math.max(1, Math.round(w * dpr));
    const hpx = Math.max(1, Math.round(h * dpr));
    // A canvas given a new size allocates a new bitmap: 20-100 ms in Chromium without a GPU on a
    // busy machine, and a map gains a row at every press of Next. So a map that outgrows its
    // bitmap (as wide, taller) gets one a quarter and four rows taller than it needs, kept while
    // the map fits and is as wide; the negative margin crops it to the map. (A tall map's box
    // scrolls down: its canvas is the box's height, nothing below it.)
    const c = this.canvas;
    const room = 4 * L.ch * dpr;
    if (c.width !== wpx || c.height < hpx || c.height > 2 * (hpx + room) || (tall && c.height !== hpx)) {
      c.height = !tall && c.width === wpx && c.height < hpx ? Math.ceil(1.25 * hpx + room) : hpx;
      c.width = wpx;
      c.style.width = `${w}px`;
      c.style.height = `${c.height / dpr}px`;
    }
    c.style.marginBottom = `${h - c.height / dpr}px`;
    this.#view = { ...this.#view, w, h };
    Object.assign(this.ring.style, { left: `${L.x - 5}px`, top: `${L.y - 5}px`, width: `${L.cw * L.cols + 10}px`, height: `${L.ch * L.rows + 10}px` });
    this.#paint();
  }

  /** Draws the part of the map scrolled to (the whole map when it fits). */
  #paint() {
    const spec = this.#spec;
    const L = this.#layout;
    if (!spec || !L) return;
    const { w, h } = this.#view;
    const sx = clamp(this.#scrolled[0], 0, Math.max(0, L.width - w));
    const sy = clamp(this.#scrolled[1], 0, Math.max(0, L.height - h));
    const theme = this.#theme ??= themeOf(this.root);
    this.#cells ??= cellBitmap(spec, L);
    this.#view = { sx, sy, w, h };
    const ctx = this.canvas.getContext('2d');
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    draw(ctx, spec, L, theme, { ...this.#view, cells: this.#cells });
    // Where the cells are, for tests and tools: CSS pixels relative to the canvas, which shows
    // the map scrolled by (sx, sy).
    this.canvas.dataset.grid = JSON.stringify({ x: L.x - sx, y: L.y - sy, cw: L.cw, ch: L.ch, rows: L.rows, cols: L.cols, sx, sy });
    this.#hide();
    if (this.#cursor) this.#show(...this.#cursor);
  }

  #cellAt(x, y) {
    const L = this.#layout;
    if (!L || x < L.x || y < L.y) return null; // (the labels' strips, which stay in view)
    const c = Math.floor((x + this.#view.sx - L.x) / L.cw);
    const r = Math.floor((y + this.#view.sy - L.y) / L.ch);
    if (r < 0 || c < 0 || r >= L.rows || c >= L.cols) return null;
    return [r, c];
  }

  #hover(x, y) {
    const cell = this.#cellAt(x, y);
    if (!cell || valueAt(this.#spec, ...cell) === undefined) {
      this.#hide();
      return;
    }
    this.#show(...cell);
  }

  #key(e) {
    const L = this.#layout;
    if (!L || !L.rows || !L.cols) return;
    const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
    if (e.key === 'Escape') {
      this.#cursor = null;
      this.#hide();
      return;
    }
    if (e.key === 'Enter' && this.#cursor) {
      this.#opts.onSelect?.(...this.#cursor);
      return;
    }
    const m = moves[e.key];
    if (!m) return;
    e.preventDefault();
    e.stopPropagation(); // arrows read the map here, instead of stepping the decoder
    const hr = this.#spec.highlightRow ?? 0;
    const [r0, c0] = this.#cursor ?? [clamp(hr, 0, L.rows - 1), 0];
    const r = this.#cursor ? clamp(r0 + m[0], 0, L.rows - 1) : r0;
    const c = this.#cursor ? clamp(c0 + m[1], 0, Math.max(0, this.#spec.values[r].length - 1)) : c0;
    this.#cursor = [r, c];
    this.#reveal(r, c);
    this.#show(r, c);
    const v = valueAt(this.#spec, r, c);
    this.readout.textContent = v === undefined ? '' : `${this.#what(r, c)}: ${v.toFixed(4)}`;
  }

  /** Scrolls the map's box so that cell (r, c) is in view, beside the labels kept in view. */
  #reveal(r, c) {
    const L = this.#layout;
    const { sx, sy, w, h } = this.#view;
    const x = c * L.cw;
    const y = r * L.ch;
    const left = clamp(sx, x + L.cw - (w - L.x), x);
    const top = clamp(sy, y + L.ch - (h - L.y), y);
    if (left === sx && top === sy) return;
    this.scroll.scrollTo(left, top);
    this.#scrolled = [left, top];
    this.#paint(); // now, not at the scroll event: the cursor is drawn where the map is
  }

  /** What cell (r, c) is, in words ("ich → i", or the spec's own description). */
  #what(r, c) {
    const spec = this.#spec;
    if (spec.describe) return spec.describe(r, c);
    return `${spec.rowLabels?.[r] ?? `row ${r}`} → ${spec.colLabels?.[c] ?? `column ${c}`}`;
  }

  #show(r, c) {
    const spec = this.#spec;
    const L = this.#layout;
    const v = valueAt(spec, r, c);
    if (v === undefined) return this.#hide();
    const what = this.#what(r, c);
    this.tip.replaceChildren();
    const head = document.createElement('div');
    head.innerHTML = `<b></b>`;
    head.firstChild.textContent = what;
    const val = document.createElement('div');
    val.className = 'v';
    val.textContent = v.toFixed(4);
    const exact = document.createElement('div');
    exact.className = 'exact';
    exact.textContent = `exact: ${v}`;
    this.tip.append(head, val, exact);
    this.tip.dataset.row = r;
    this.tip.dataset.col = c;
    this.tip.dataset.value = String(v);
    this.canvas.title = `${what}: ${v}`;
    // The cell on the screen (the canvas shows the map from (sx, sy) on).
    const rect = this.canvas.getBoundingClientRect();
    const cx = rect.left + L.x + c * L.cw - this.#view.sx;
    const cy = rect.top + L.y + r * L.ch - this.#view.sy;
    const home = this.root.getBoundingClientRect();
    Object.assign(this.box.style, { left: `${cx - home.left}px`, top: `${cy - home.top}px`, width: `${L.cw}px`, height: `${L.ch}px` });
    this.box.hidden = false;
    this.tip.hidden = false;
    // Beside the cell (right, else left), else under it; always inside the part of the window on
    // screen (the visual viewport: a phone zoomed in shows less than the layout viewport).
    const tw = this.tip.offsetWidth;
    const th = this.tip.offsetHeight;
    const vv = window.visualViewport;
    const X0 = (vv?.offsetLeft ?? 0) + 4;
    const Y0 = (vv?.offsetTop ?? 0) + 4;
    const X1 = (vv ? vv.offsetLeft + vv.width : document.documentElement.clientWidth) - 4;
    const Y1 = (vv ? vv.offsetTop + vv.height : window.innerHeight) - 4;
    let left = cx + L.cw + 8;
    let top = cy + L.ch / 2 - th / 2;
    if (left + tw > X1) left = cx - tw - 8;
    if (left < X0) {
      left = clamp(cx + L.cw / 2 - tw / 2, X0, Math.max(X0, X1 - tw));
      top = cy + L.ch + 6 + th > Y1 ? cy - th - 6 : cy + L.ch + 6;
    }
    this.tip.style.left = `${left}px`;
    this.tip.style.top = `${clamp(top, Y0, Math.max(Y0, Y1 - th))}px`;
  }

  #hide() {
    this.tip.hidden = true;
    this.box.hidden = true;
  }

  dispose() {
    window.removeEventListener('scroll', this.onScroll, { capture: true });
    this.resizer.disconnect();
    this.scheme?.removeEventListener?.('change', this.onScheme);
    this.root.remove();
  }
}
