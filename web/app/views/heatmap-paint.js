// Paints a laid-out heatmap (heatmap-layout.js) on a 2D canvas: the cells as one scaled bitmap,
// their values when cells are large enough, the highlighted row, the row and column labels kept
// in view whatever the scroll, and the legend. The Heatmap view (heatmap.js) owns the canvas.

import { inkOn, scaleOf } from './colour-scale.js';
import { BOLD, EMPTY, FONT, FONT_FAMILY, HIGHLIGHT, HIGHLIGHT_TEXT, TEXT, clamp, fmt, newCanvas, valueAt } from './heatmap-layout.js';

/**
 * The colours of a map's labels, legend text and empty cells, from the CSS around the map (its
 * `color`, `--hm-empty` and `--hm-highlight-ink`): the widget's theme (light, dark, --attnscope-*) reaches the canvas.
 * Cell colours are the data's scale and never change; text on cells is black or white (inkOn).
 */
export function themeOf(el) {
  const style = getComputedStyle(el);
  const prop = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
  return { text: style.color || TEXT, empty: prop('--hm-empty', EMPTY), highlight: prop('--hm-highlight-ink', HIGHLIGHT_TEXT) };
}

/** The map's cells as a bitmap of one pixel per cell, in the scale's colours (transparent: no value). */
export function cellBitmap(spec, L) {
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
export function draw(ctx, spec, L, theme, view) {
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
