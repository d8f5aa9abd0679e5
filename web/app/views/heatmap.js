// Canvas heatmaps (one canvas per map, however many cells), with a colour legend, exact values
// on hover (a tooltip whose text and data-value hold the number as the engine returned it),
// keyboard reading (focus the map, arrow keys move the cursor, a polite live region reads the
// cell), the same numbers as a visually hidden <table> for screen readers, and an SVG twin for
// export (heatmap-svg.js). The layout is heatmap-layout.js's, the painting heatmap-paint.js's and
// the colours colour-scale.js's; this module is the view: its elements, events and table.
//
// Long inputs: a labelled map's cells are never smaller than MIN_CELL, where its labels stay
// readable; a map wider than its box scrolls sideways, and one taller than TALL_MAP scrolls
// inside a box of the window's height. The canvas is only the box's size and shows the part
// scrolled to, the row labels and column labels kept in view (sticky); the cells are one
// drawImage of a bitmap of a pixel per cell, so a 512 × 512 map costs what a small one does.
//
//   const map = new Heatmap(container, { onSelect: (row, col) => … });
//   map.set({ values: [Float32Array, …], rowLabels, colLabels, highlightRow, rowTitle, colTitle });
//   mapSVG(map)  // the same picture as an SVG document (string; heatmap-svg.js)
//
// `values` is a list of rows; a row shorter than colLabels leaves its last cells empty (the
// decoder's self-attention only sees earlier positions). Colours map [0, 1] (attention weights)
// unless the spec has `scale: {min, max, diverging}`: values that are not weights (‖α·f(x)‖,
// Δ log-likelihood, cosines, positional encodings) get a sequential scale over [min, max] or a
// diverging one (red below 0, blue above, white at 0) over [-max(|min|, |max|), +that].
import { setText } from '../util/html.js';
import { clamp, layout, valueAt } from './heatmap-layout.js';
import { cellBitmap, draw, themeOf } from './heatmap-paint.js';

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

/** A map taller than this (CSS pixels) scrolls inside a box as high as most of the window. */
const TALL_MAP = 2400;
const tallBoxHeight = () => Math.max(420, Math.round(0.75 * window.innerHeight));
/** The visually hidden table holds maps of up to this many cells; larger ones are read by keyboard. */
const TABLE_CELLS = 2500;

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
