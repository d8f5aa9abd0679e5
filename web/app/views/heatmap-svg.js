// The SVG export of heatmaps: a map as SVG elements or a standalone document, laid out as the
// canvas draws it (heatmap-layout.js) in the same colours (colour-scale.js), with its legend, and
// the titles and documents of composite figures. Functions of a map's spec and width, not methods
// of Heatmap: the widget, which exports nothing, leaves this module out of its build.

import { esc } from '../util/html.js';
import { colourIn, inkOn, scaleOf } from './colour-scale.js';
import { EMPTY, FONT_FAMILY, HIGHLIGHT, HIGHLIGHT_TEXT, TEXT, clamp, fmt, layout, measure, valueAt } from './heatmap-layout.js';

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
