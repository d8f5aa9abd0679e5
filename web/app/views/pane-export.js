// Export of an Analyses pane: every figure it shows (canvas heatmaps and inline SVG charts), in
// page order, each under its heading, on one SVG sheet under a title; and its heatmaps as data.
import { FONT_FAMILY } from './heatmap-layout.js';
import { mapSVGBody, svgDocument, titleSVG } from './heatmap-svg.js';
import { heatmapOf } from './heatmap.js';
import { esc } from '../util/html.js';
import { mapsData } from '../util/data-export.js';

const GAP = 18;

const shown = (el) => el.getClientRects().length > 0;

/**
 * The heading a figure is shown under, as the reader sees it: its figcaption, else the last
 * heading on screen before it in the pane, else the pane's own title (`paneTitle`: its tab's
 * label). Never a heading outside the pane, nor one hidden with another pane.
 */
function captionOf(el, pane, paneTitle) {
  let heading = el.closest('figure')?.querySelector('figcaption');
  if (!heading) {
    for (const h of pane.querySelectorAll('h3, h4')) {
      if (shown(h) && (h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)) heading = h;
    }
  }
  return (heading?.textContent ?? paneTitle ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * The pane's figures as one SVG document titled `title`, each under its heading (captionOf;
 * `paneTitle`: the pane's own); throws when it shows none.
 */
export function paneSVG(pane, title, paneTitle) {
  const figures = [...pane.querySelectorAll('canvas, svg')].filter((el) => shown(el) && !el.parentElement.closest('svg'));
  const parts = [];
  let y = 0;
  let width = 480;
  let last = '';
  const blocks = [];
  for (const el of figures) {
    const caption = captionOf(el, pane, paneTitle);
    let block;
    if (el instanceof HTMLCanvasElement) {
      const map = heatmapOf(el);
      if (!map?.spec) continue;
      block = (x, top, id) => mapSVGBody(map, x, top, id);
      const probe = block(0, 0, 'p');
      blocks.push({ caption, width: probe.width, height: probe.height, draw: block });
    } else {
      const w = Number(el.getAttribute('width')) || el.getBoundingClientRect().width;
      const h = Number(el.getAttribute('height')) || el.getBoundingClientRect().height;
      const copy = el.cloneNode(true);
      copy.removeAttribute('class');
      blocks.push({ caption, width: w, height: h, draw: (x, top) => {
        copy.setAttribute('x', x);
        copy.setAttribute('y', top);
        copy.setAttribute('width', w);
        copy.setAttribute('height', h);
        return { body: new XMLSerializer().serializeToString(copy) };
      } });
    }
  }
  if (!blocks.length) throw new Error('this analysis shows no figure yet: run it first');
  width = Math.max(width, ...blocks.map((b) => b.width));
  const head = titleSVG(title, width);
  parts.push(head.body);
  y = head.height;
  blocks.forEach((b, i) => {
    if (b.caption && b.caption !== last) {
      parts.push(`<text x="0" y="${y + 14}" font-family='${FONT_FAMILY}' font-size="13" font-weight="600" fill="#1f2328">${esc(b.caption)}</text>`);
      y += 22;
      last = b.caption;
    }
    parts.push(b.draw(0, y, `f${i}`).body);
    y += b.height + GAP;
  });
  return svgDocument(Math.max(width, head.width), y, parts.join('\n'));
}

/**
 * The pane's heatmaps as data (web/app/util/data-export.js), each named by its heading (captionOf)
 * and its number on the pane, for two under one heading; throws when it shows none.
 */
export function paneData(pane, title, paneTitle) {
  const maps = [...pane.querySelectorAll('canvas')].filter(shown).map((el) => ({ el, map: heatmapOf(el) })).filter(({ map }) => map?.spec)
    .map(({ el, map }, i) => ({ name: { figure: i + 1, heading: captionOf(el, pane, paneTitle) }, spec: map.spec }));
  if (!maps.length) throw new Error('this analysis shows no map to export as data yet: run it first');
  return mapsData(title, maps);
}
