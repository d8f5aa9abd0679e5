// Heatmaps of a long input: a 300-token source (the converted opus-mt-en-de-tiny, whose positions
// go to 512) in the page. Its maps keep cells big enough for their labels to be read, scroll
// instead of squashing (sideways; the 300 × 300 encoder map down as well), keep the row and
// column labels in view while they scroll, and a hover at a scrolled position names the query and
// key the engine in Node says are there, with the engine's value. Prints how long the page takes
// to draw a 512 × 512 map (a number to watch, not asserted).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { hoverCell, idle, openPage, root, screenshot, startBrowser, watchErrors } from './browser.js';

const MODEL = '/tests/golden/hf/opus-mt-en-de-tiny.safetensors';
const SOURCE_TOKENS = 300; // </s> included
// Labels of 12 px text are legible, rotated 45°, when columns are at least this many CSS pixels apart.
const READABLE_CELL = 16;
const WORDS = 'a man is riding a red bicycle in the park while two children are playing with a small ball near the river .'.split(' ');

let env;
let model;
let sentence;
let pieces; // the engine's pieces of `sentence`, </s> last
beforeAll(async () => {
  env = await startBrowser();
  model = await loadModel(`${root}${MODEL}`);
  // Words of the caption, then "a" (one piece) until the source is SOURCE_TOKENS long.
  const words = [];
  const count = () => model.tokenize(words.join(' ')).pieces.length + 1;
  while (count() < SOURCE_TOKENS - 8) words.push(WORDS[words.length % WORDS.length]);
  while (count() < SOURCE_TOKENS) words.push('a');
  sentence = words.join(' ');
  pieces = [...model.tokenize(sentence).pieces, '</s>'];
});
afterAll(async () => {
  model?.dispose();
  await env?.close();
});

/** The main map's canvas, its scroll box's geometry and its grid (data-grid: where the cells are now). */
const mapState = (page) => page.evaluate(() => {
  const canvas = document.querySelector('#heatmap canvas');
  const box = canvas.parentElement;
  return {
    grid: JSON.parse(canvas.dataset.grid), canvasWidth: canvas.getBoundingClientRect().width, canvasHeight: canvas.getBoundingClientRect().height,
    scrollWidth: box.scrollWidth, clientWidth: box.clientWidth, scrollHeight: box.scrollHeight, clientHeight: box.clientHeight,
    // Elements drawn (the screen readers' visually hidden table of values aside).
    elements: [...canvas.closest('.hm').querySelectorAll('*')].filter((e) => !e.closest('.hm-sr')).length,
  };
});

/** Scrolls the main map's box to (left, top), and waits for the frame after (the scroll event's). */
async function scrollMap(page, left, top) {
  await page.evaluate(async ([x, y]) => {
    document.querySelector('#heatmap .hm-scroll').scrollTo(x, y);
    for (let i = 0; i < 2; i++) await new Promise(requestAnimationFrame);
  }, [left, top]);
  const { grid } = await mapState(page);
  expect([grid.sx, grid.sy]).toEqual([left, top]);
}

/** The strips of the canvas where the row labels (left of the cells) and column labels (above) are. */
const labelStrips = ({ grid, canvasWidth, canvasHeight }) => {
  const [x, y] = [grid.x + grid.sx, grid.y + grid.sy]; // where the cells begin when not scrolled
  return { rows: [0, y, x - 4, canvasHeight - y], cols: [x, 0, canvasWidth - x, y - 2] };
};

/** How many pixels of the canvas' strip (x, y, w, h in CSS pixels) are inked (not transparent). */
const inked = (page, [x, y, w, h]) => page.evaluate(([x0, y0, w0, h0]) => {
  const c = document.querySelector('#heatmap canvas');
  const dpr = c.width / parseFloat(c.style.width);
  const data = c.getContext('2d').getImageData(Math.round(x0 * dpr), Math.round(y0 * dpr), Math.round(w0 * dpr), Math.round(h0 * dpr)).data;
  let n = 0;
  for (let i = 3; i < data.length; i += 4) if (data[i] > 200) n++;
  return n;
}, [x, y, w, h]);

/** Hovers cell (row, col), which must be on screen, and returns what the tooltip says of it. */
async function hoverAt(page, row, col) {
  const canvas = page.locator('#heatmap canvas');
  const tip = page.locator('#heatmap .hm-tip');
  // Each try enters the cell afresh: on a busy machine the first move can arrive before the
  // scrolled map has been repainted, and a tooltip follows only the next mousemove.
  await expect.poll(async () => {
    await page.mouse.move(0, 0);
    await hoverCell(page, canvas, row, col);
    return tip.isVisible();
  }, { timeout: 10_000 }).toBe(true);
  return { row: Number(await tip.getAttribute('data-row')), col: Number(await tip.getAttribute('data-col')), value: Number(await tip.getAttribute('data-value')), text: await tip.textContent() };
}

it('keeps a 300-token source\'s maps readable: cells of a legible size, scrolling, labels in view, the right cell under the mouse', async () => {
  expect(pieces).toHaveLength(SOURCE_TOKENS);
  const session = model.translate(sentence, { strategy: 'greedy' });
  session.step();
  session.step();
  const { page, errors } = await openPage(env, `/web/index.html?model-url=${encodeURIComponent(MODEL)}&s=${encodeURIComponent(sentence)}&view=cross`, { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction((want) => window.attnscope.snapshot?.url.endsWith(want), MODEL, { timeout: 30_000 });
  await idle(page);
  expect(await page.evaluate(() => window.attnscope.snapshot.source.pieces)).toEqual(pieces);

  await page.click('#next');
  await idle(page);
  const { layer, head, step } = await page.evaluate(() => window.attnscope.state);
  expect(step).toBe(2);

  // Cross-attention: 2 steps over 300 source tokens. It scrolls sideways; the canvas is the box's width.
  let map = await mapState(page);
  expect([map.grid.rows, map.grid.cols]).toEqual([2, SOURCE_TOKENS]);
  expect(map.grid.cw).toBeGreaterThanOrEqual(READABLE_CELL);
  expect(map.scrollWidth).toBeGreaterThan(map.clientWidth);
  expect(map.scrollWidth).toBeGreaterThanOrEqual(SOURCE_TOKENS * READABLE_CELL);
  expect(map.canvasWidth).toBeLessThanOrEqual(map.clientWidth);
  expect(map.elements, 'drawn on a canvas, not a node per cell').toBeLessThan(50);
  const cross = session.crossAttention(1, { layer, head }).data;
  // Scrolled two thirds of the way: column 200 is on screen, under the mouse, with its value.
  await scrollMap(page, Math.round(200 * map.grid.cw - map.clientWidth / 2), 0);
  map = await mapState(page);
  expect(map.grid.x).toBeLessThan(0);
  // The row labels stayed at the left, the column labels above the cells scrolled to.
  for (const strip of Object.values(labelStrips(map))) expect(await inked(page, strip)).toBeGreaterThan(100);
  let hovered = await hoverAt(page, 1, 200);
  expect([hovered.row, hovered.col]).toEqual([1, 200]);
  expect(hovered.value).toBe(cross[200]);
  // A piece that starts a word loses its "▁"; one that goes on the word before reads "·piece".
  const label = (p) => (p.startsWith('▁') ? p.slice(1) : `·${p}`);
  expect(hovered.text).toContain(`attends to “${label(pieces[200])}”`);
  await screenshot(page, 'long-input-cross', { fullPage: false });

  // The encoder's 300 × 300 map scrolls both ways inside a box of the window's height.
  await page.click('#tab-encoder');
  await idle(page);
  map = await mapState(page);
  expect([map.grid.rows, map.grid.cols]).toEqual([SOURCE_TOKENS, SOURCE_TOKENS]);
  expect(map.grid.cw).toBeGreaterThanOrEqual(READABLE_CELL);
  expect(map.scrollHeight).toBeGreaterThan(map.clientHeight);
  expect(map.clientHeight).toBeLessThanOrEqual(900);
  expect(map.canvasHeight).toBeLessThanOrEqual(map.clientHeight);
  const encoder = session.encoderAttention({ layer, head }).data;
  const [r, c] = [250, 120];
  await scrollMap(page, Math.round(c * map.grid.cw - map.clientWidth / 2), Math.round(r * map.grid.ch - map.clientHeight / 2));
  map = await mapState(page);
  expect(map.grid.y).toBeLessThan(0);
  for (const strip of Object.values(labelStrips(map))) expect(await inked(page, strip)).toBeGreaterThan(100);
  hovered = await hoverAt(page, r, c);
  expect([hovered.row, hovered.col]).toEqual([r, c]);
  expect(hovered.value).toBe(encoder[r * SOURCE_TOKENS + c]);
  await screenshot(page, 'long-input-encoder', { fullPage: false });

  // The model view's thumbnails of maps 300 keys wide stay thumbnails (cells under a pixel, scaled down).
  await page.click('#tab-model');
  await idle(page);
  const thumbs = await page.$$eval('#view-body .thumb', (cells) => cells.map((c) => [c.getBoundingClientRect().width, c.querySelector('canvas').getBoundingClientRect().width, JSON.parse(c.querySelector('canvas').dataset.grid).cols]));
  expect(thumbs.length).toBeGreaterThan(0);
  for (const [cell, canvas, cols] of thumbs) {
    expect(cols).toBe(SOURCE_TOKENS);
    expect(canvas).toBeLessThanOrEqual(cell);
  }
  await screenshot(page, 'long-input-model-view', { fullPage: false });
  session.dispose();
  expect(errors).toEqual([]);
  await page.close();
});

it('draws a 512 × 512 map at once (prints the time)', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(env.url('/web/index.html'));
  await idle(page);
  // (A string: vitest would rewrite an import() written in a function.)
  await page.evaluate("import('/web/app/views/heatmap.js').then((m) => { window.HeatmapClass = m.Heatmap; })");
  const times = await page.evaluate(async () => {
    const Heatmap = window.HeatmapClass;
    const n = 512;
    const labels = Array.from({ length: n }, (_, i) => `piece${i}`);
    const values = Array.from({ length: n }, (_, q) => Float32Array.from({ length: n }, (_, k) => ((q * 31 + k * 17) % 97) / 97));
    const box = document.createElement('div');
    document.body.prepend(box);
    const map = new Heatmap(box);
    const out = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      map.set({ values, rowLabels: labels, colLabels: labels, highlightRow: i });
      const drawn = performance.now();
      await new Promise(requestAnimationFrame);
      await new Promise((ok) => setTimeout(ok));
      out.push({ set: drawn - t0, painted: performance.now() - t0 });
    }
    const grid = JSON.parse(map.canvas.dataset.grid);
    return { out, grid, canvas: [map.canvas.width, map.canvas.height], elements: map.root.querySelectorAll('*').length, tableCells: map.table.querySelectorAll('td').length };
  });
  expect([times.grid.rows, times.grid.cols]).toEqual([512, 512]);
  expect(times.grid.cw).toBeGreaterThanOrEqual(READABLE_CELL);
  expect(times.elements, 'no node per cell, the hidden table included').toBeLessThan(50);
  const median = (xs) => xs.toSorted((a, b) => a - b)[xs.length >> 1];
  console.log(`512 × 512 heatmap: set (drawn) ${median(times.out.map((t) => t.set)).toFixed(1)} ms, to the frame shown ${median(times.out.map((t) => t.painted)).toFixed(1)} ms (median of 5); canvas ${times.canvas.join(' × ')} px`);
  expect(errors).toEqual([]);
  await page.close();
});
