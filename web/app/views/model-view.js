// The model view of the attention card: every layer × head of one attention site at once, as
// thumbnails (click one to open it), with the pattern class of each head where the engine gives
// one and what the interventions did to it; and the same sheet as one SVG for export.
import { PATTERN_RULES } from '../panels/analyses.js';
import { FONT_FAMILY } from './heatmap-layout.js';
import { heatmapSVGBody, legendSVG, svgDocument, titleSVG } from './heatmap-svg.js';
import { Heatmap } from './heatmap.js';
import { PATTERN_LABEL, editsOf } from '../panels/interventions.js';
import { classifiedSite } from '../model/sites.js';
import { piecesShown } from '../util/pieces.js';
import { mapsData } from '../util/data-export.js';
import { attentionSpec } from './views.js';

export class ModelView {
  #open;
  #onDrawn;
  #thumbs = null; // {key, grid, maps: [[Heatmap]]}

  /** open(siteName, layer, head): a thumbnail was chosen; onDrawn(): thumbnails are on screen. */
  constructor({ open, onDrawn }) {
    this.#open = open;
    this.#onDrawn = onDrawn;
  }

  /** Draws `site` (the engine's description) of `snap` into `body`; marks the chosen layer and head. */
  render(body, snap, site, { layer, head, interventions }) {
    const L = site.layers;
    const H = site.heads;
    // Thumbnails sized so that every head fits the card's width (a phone shows all 8).
    const avail = body.clientWidth || 800;
    const narrow = avail < 520;
    const size = Math.floor(Math.max(20, Math.min(84, (avail - (narrow ? 26 : 58)) / H - 16)));
    const key = `${site.name}:${L}:${H}:${size}`;
    if (site.perStep && !snap.rows.length) {
      this.#thumbs = null;
      body.innerHTML = '<p class="placeholder">No step yet: press Next (or →).</p>';
      return;
    }
    if (this.#thumbs?.key !== key || !body.contains(this.#thumbs.grid)) {
      body.replaceChildren();
      const grid = document.createElement('div');
      grid.className = 'model-grid';
      grid.style.setProperty('--heads', H);
      grid.style.setProperty('--thumb', `${size}px`);
      grid.append(Object.assign(document.createElement('span'), { className: 'corner' }));
      for (let h = 0; h < H; h++) grid.append(Object.assign(document.createElement('span'), { className: 'col-head', textContent: narrow ? `H${h + 1}` : `head ${h + 1}`, title: `head ${h + 1}` }));
      const maps = [];
      for (let l = 0; l < L; l++) {
        grid.append(Object.assign(document.createElement('span'), { className: 'row-head', textContent: narrow ? `L${l + 1}` : `layer ${l + 1}`, title: `layer ${l + 1}` }));
        maps.push([]);
        for (let h = 0; h < H; h++) {
          const cell = document.createElement('div');
          cell.className = 'thumb';
          cell.dataset.layer = l;
          cell.dataset.head = h;
          grid.append(cell);
          maps[l].push(new Heatmap(cell, { onSelect: () => this.#open(site.name, l, h) }));
        }
      }
      const legend = document.createElement('div');
      legend.className = 'legend-bar';
      legend.innerHTML = '<span>0</span><i aria-hidden="true"></i><span>1</span><span class="muted">attention weight</span>';
      body.append(grid, legend);
      this.#thumbs = { key, grid, maps };
    }
    const map = snap.attention(site.name, { show: piecesShown() });
    const patterns = site === classifiedSite(snap.sites, snap.input) ? snap.patterns : null;
    for (let l = 0; l < L; l++) {
      for (let h = 0; h < H; h++) {
        const spec = attentionSpec(map, l, h);
        this.#thumbs.maps[l][h].set({
          ...spec, compact: true, size, legend: false, ariaLabel: `${site.label}, layer ${l + 1}, head ${h + 1}`,
          describe: (r, c) => `layer ${l + 1}, head ${h + 1}: ${spec.describe(r, c)}`,
        });
        const cell = this.#thumbs.maps[l][h].root.parentElement;
        cell.classList.toggle('selected', l === layer && h === head);
        let badge = cell.querySelector('.pattern');
        const pattern = patterns?.[l * H + h];
        if (pattern) {
          if (!badge) {
            badge = document.createElement('span');
            badge.className = 'pattern';
            cell.append(badge);
          }
          badge.textContent = pattern;
          badge.dataset.pattern = pattern;
          badge.title = `${pattern}. ${PATTERN_RULES}`;
        } else {
          badge?.remove();
        }
        const e = editsOf(interventions, site, l, h);
        const mod = [e.skipped && 'skipped', e.masked && 'masked', e.pattern && PATTERN_LABEL[e.pattern], e.copied && 'source copied', e.lastState && 'last state only'].filter(Boolean).join(' · ');
        if (mod) cell.dataset.mod = mod;
        else delete cell.dataset.mod;
      }
    }
    this.#onDrawn();
  }

  /** Every layer × head of `site` as data (web/app/util/data-export.js), layers and heads from 1. */
  data(snap, site, title) {
    const map = snap.attention(site.name, { show: piecesShown() });
    const maps = [];
    for (let l = 0; l < site.layers; l++) {
      for (let h = 0; h < site.heads; h++) maps.push({ name: { layer: l + 1, head: h + 1 }, spec: attentionSpec(map, l, h) });
    }
    return mapsData(title, maps, { site: site.name });
  }

  /** Every thumbnail of `site` on one SVG sheet. */
  svg(snap, site, sentence) {
    const L = site.layers;
    const H = site.heads;
    const cell = 100;
    const map = snap.attention(site.name, { show: piecesShown() });
    const width = Math.max(480, 70 + H * cell);
    const title = titleSVG(`${site.label}, every layer × head · ${sentence}`, width);
    const top = title.height;
    const parts = [title.body];
    for (let h = 0; h < H; h++) parts.push(`<text x="${70 + h * cell}" y="${top + 18}" font-family='${FONT_FAMILY}' font-size="12" fill="#1f2328">head ${h + 1}</text>`);
    let spec;
    for (let l = 0; l < L; l++) {
      parts.push(`<text x="0" y="${top + 34 + l * cell + 40}" font-family='${FONT_FAMILY}' font-size="12" fill="#1f2328">layer ${l + 1}</text>`);
      for (let h = 0; h < H; h++) {
        spec = { ...attentionSpec(map, l, h), compact: true, size: 84, legend: false };
        parts.push(heatmapSVGBody(spec, 0, 70 + h * cell, top + 30 + l * cell).body);
      }
    }
    // One colour scale for every thumbnail (attention weights): its legend under the sheet.
    parts.push(legendSVG(spec, 70, top + 34 + L * cell));
    return svgDocument(Math.max(width, title.width), top + 34 + L * cell + 40, parts.join('\n'));
  }
}
