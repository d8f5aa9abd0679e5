// The page's performance marks that tests/bench/page_latency.mjs times a press of Next with:
// after a press, the map drawn, the next frame, painted (in that order), the round
// trip to the worker, the worker's own time for the step, and each panel's render; the main
// map's table of numbers is updated in place (its rows kept), after the frame that shows the
// map; and the rollout of the Analyses
// card is drawn once per session, not again at every step.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatState, parseState } from '../../web/app/state/state.js';
import { idle, openPage, startBrowser } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

const entries = (page, names) => page.evaluate((list) => Object.fromEntries(list.map((n) => {
  const e = performance.getEntriesByName(n).at(-1);
  return [n, e ? { start: e.startTime, duration: e.duration } : null];
})), names);

it('marks a press of Next: drawn, frame, painted in order, after the round trip; the worker times the step; each panel\'s render', async () => {
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'toy-en-de', s: 'i can eat apple', step: 1 })}`);
  // A press that asks the worker (the page's lookahead off: the step is not held before the
  // click), so that the worker's time for that step lies within the round trip.
  await page.evaluate(() => { window.attnscope.lookAhead = false; });
  const clickAt = await page.evaluate(() => performance.now());
  await page.click('#next');
  await idle(page);
  await page.waitForFunction(() => performance.getEntriesByName('attnscope:heatmap-painted').at(-1)?.startTime
    > performance.getEntriesByName('attnscope:heatmap-drawn').at(-1).startTime);
  const names = ['attnscope:round-trip:step', 'attnscope:heatmap-drawn', 'attnscope:heatmap-frame', 'attnscope:heatmap-painted',
    ...['stepper', 'modified', 'output', 'logits', 'attention', 'analyses', 'break'].map((p) => `attnscope:render:${p}`)];
  const m = await entries(page, names);
  for (const n of names) expect(m[n], n).not.toBeNull();
  const trip = m['attnscope:round-trip:step'];
  expect(trip.start).toBeGreaterThan(clickAt);
  expect(m['attnscope:heatmap-drawn'].start).toBeGreaterThanOrEqual(trip.start + trip.duration);
  expect(m['attnscope:heatmap-frame'].start).toBeGreaterThanOrEqual(m['attnscope:heatmap-drawn'].start);
  expect(m['attnscope:heatmap-painted'].start).toBeGreaterThanOrEqual(m['attnscope:heatmap-frame'].start);
  // Only the latest of each is kept: a long session does not pile them up.
  expect(await page.evaluate(() => performance.getEntriesByName('attnscope:heatmap-drawn').length)).toBe(1);
  // The engine's worker keeps the step's time in its own timeline, within the round trip.
  const worker = page.workers().find((w) => w.url().endsWith('/web/page-worker.js'));
  const inWorker = await worker.evaluate(() => performance.getEntriesByName('attnscope:worker:step').map((e) => e.duration));
  expect(inWorker).toHaveLength(1);
  expect(inWorker[0]).toBeGreaterThan(0);
  expect(inWorker[0]).toBeLessThanOrEqual(trip.duration);
  expect(errors).toEqual([]);
  await page.close();
});

it('keeps the main map\'s table across a press of Next: the same rows, one more, the numbers of the new map', async () => {
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'toy-en-de', s: 'i can eat apple', step: 1 })}`);
  const rows = () => page.evaluate("import('/web/app/views/heatmap.js').then(({ heatmapOf }) => {"
    + " const t = document.querySelector('#heatmap table'); const body = t.tBodies[0];"
    + ' window.firstRows ??= []; if (!window.firstRows.includes(body.rows[0])) window.firstRows.push(body.rows[0]);'
    + " const { values } = heatmapOf(document.querySelector('#heatmap canvas')).spec;"
    + ' return { first: window.firstRows.indexOf(body.rows[0]), tables: document.querySelectorAll(\'#heatmap table\').length,'
    + ' text: [...body.rows].map((r) => [...r.cells].map((c) => c.textContent)),'
    + ' want: values.map((row) => [...row].map((v) => v.toFixed(4))) }; })');
  const before = await rows();
  expect(before.text).toHaveLength(1);
  await page.click('#next');
  await idle(page);
  const after = await rows();
  expect(after.first).toBe(0); // the row of step 1 is the same element
  expect(after.tables).toBe(1);
  expect(after.text).toHaveLength(2);
  expect(after.text.map((r) => r.slice(1))).toEqual(after.want);
  expect(errors).toEqual([]);
  await page.close();
});

it('fills the main map\'s table after the frame that shows the map, not in the press\'s task', async () => {
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'toy-en-de', s: 'i can eat apple', step: 1 })}`);
  // What the table holds when the map is drawn (the mark is made right after Heatmap.set draws),
  // when the next frame starts, and once the page is idle.
  await page.evaluate(() => {
    const hm = document.querySelector('#heatmap'); // (the map's root, .hm)
    const seen = (at) => ({ at, rows: hm.querySelector('table').tBodies[0].rows.length, pending: hm.dataset.tablePending ?? null });
    window.tableSeen = [];
    const mark = performance.mark.bind(performance);
    performance.mark = (name, options) => {
      if (name === 'attnscope:heatmap-drawn' || name === 'attnscope:heatmap-frame') window.tableSeen.push(seen(name));
      return mark(name, options);
    };
  });
  await page.click('#next');
  await idle(page);
  const seen = await page.evaluate(() => window.tableSeen);
  expect(seen).toEqual([
    { at: 'attnscope:heatmap-drawn', rows: 1, pending: 'true' },
    { at: 'attnscope:heatmap-frame', rows: 1, pending: 'true' },
  ]);
  expect(await page.evaluate(() => ({
    rows: document.querySelector('#heatmap table').tBodies[0].rows.length,
    pending: document.querySelectorAll('[data-table-pending]').length,
  }))).toEqual({ rows: 2, pending: 0 });
  expect(errors).toEqual([]);
  await page.close();
});

it('draws the rollout once per session: a press of Next keeps its map, another sentence redraws it', async () => {
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'toy-en-de', s: 'i can eat apple', step: 1, an: 'rollout' })}`);
  // Each drawing is a new spec (Heatmap.set): the index of the one shown, and its rows.
  const table = () => page.evaluate("import('/web/app/views/heatmap.js').then(({ heatmapOf }) => {"
    + " const { spec } = heatmapOf(document.querySelector('#rollout-map canvas')); window.rolloutSpecs ??= [];"
    + ' if (!window.rolloutSpecs.includes(spec)) window.rolloutSpecs.push(spec);'
    + ' return { index: window.rolloutSpecs.indexOf(spec), rows: spec.values.length }; })');
  expect(await table()).toEqual({ index: 0, rows: 5 });
  await page.click('#next');
  await idle(page);
  expect(Number(await page.getAttribute('#app', 'data-steps'))).toBe(2);
  expect(await table()).toEqual({ index: 0, rows: 5 }); // the same map, not rebuilt
  await page.fill('#sentence', 'we drink beer');
  await page.click('#translate');
  await idle(page);
  expect(await table()).toEqual({ index: 1, rows: 4 }); // another session: its own rollout
  expect(errors).toEqual([]);
  await page.close();
});

it('keeps the output lines across a press of Next: the same elements, one more holding the new step, no list rebuilt', async () => {
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'toy-en-de', s: 'i can eat apple', step: 2 })}`);
  // The elements of the lines, remembered across snapshots: the index of each in the first list seen.
  const lines = () => page.evaluate(() => {
    const items = [...document.querySelectorAll('#lines > li')];
    window.firstLines ??= items;
    window.firstSource ??= document.querySelector('#source-tokens > .tok');
    return {
      same: items.map((li) => window.firstLines.indexOf(li)), current: items.map((li) => li.classList.contains('current')),
      ariaCurrent: items.map((li) => li.getAttribute('aria-current')), steps: items.map((li) => li.dataset.step),
      text: items.map((li) => li.textContent.replace(/\s+/g, ' ').trim()),
      sourceKept: document.querySelector('#source-tokens > .tok') === window.firstSource,
    };
  });
  const rows = () => page.evaluate(() => window.attnscope.snapshot.rows.map((r, k) => `${k + 1}) ${r.input} → ${r.output}`));
  const before = await lines();
  expect(before.same).toEqual([0, 1]);
  expect(before.text).toEqual(await rows());
  await page.click('#next');
  await idle(page);
  const after = await lines();
  expect(after.same).toEqual([0, 1, -1]); // steps 1 and 2 kept, step 3 appended
  expect(after.text).toEqual(await rows());
  expect(after.text).toHaveLength(3);
  expect(after.current).toEqual([false, false, true]);
  expect(after.ariaCurrent).toEqual([null, null, 'step']);
  expect(after.steps).toEqual(['1', '2', '3']);
  expect(after.sourceKept).toBe(true);
  await page.click('#prev');
  await idle(page);
  const back = await lines();
  expect(back.same).toEqual([0, 1]);
  expect(back.current).toEqual([false, true]);
  expect(back.text).toEqual(await rows());
  // A kept line still goes to its step when clicked.
  await page.click('#lines > li:first-child button');
  await idle(page);
  expect(Number(await page.getAttribute('#app', 'data-steps'))).toBe(1);
  expect((await lines()).same).toEqual([0]);
  expect(errors).toEqual([]);
  await page.close();
});

it('scrolls the output list to its last line in the next frame, not inside the step\'s render (no forced layout)', async () => {
  const LONG = 'Two young men in black jackets and a woman with a yellow hat are sitting on a wooden bench in front of a small restaurant '
    + 'while an old man with a white beard sells fresh fruit and vegetables at the market on the other side of the busy street.';
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'multi30k-en-de', s: LONG, step: 25 })}`);
  const frames = () => page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  const inView = () => page.evaluate(() => {
    const list = document.getElementById('lines');
    const last = list.lastElementChild.getBoundingClientRect();
    const box = list.getBoundingClientRect();
    return { scrolled: list.scrollTop > 0, lastInside: last.bottom <= box.bottom + 1 && last.top >= box.top - 1 };
  });
  await frames();
  expect(await inView()).toEqual({ scrolled: true, lastInside: true });
  // When the list's scrollHeight is read (a layout, if the page was written since): after the
  // step's map is drawn, in the frame that follows, not between the answer and the map.
  await page.evaluate(() => {
    window.listReads = [];
    const { get } = Object.getOwnPropertyDescriptor(Element.prototype, 'scrollHeight');
    Object.defineProperty(Element.prototype, 'scrollHeight', {
      configurable: true,
      get() { if (this.id === 'lines') window.listReads.push(performance.now()); return get.call(this); },
    });
  });
  await page.click('#next');
  await idle(page);
  await frames();
  expect(Number(await page.getAttribute('#app', 'data-steps'))).toBe(26);
  expect(await inView()).toEqual({ scrolled: true, lastInside: true });
  const { reads, trip, drawn } = await page.evaluate(() => ({
    reads: window.listReads, trip: performance.getEntriesByName('attnscope:round-trip:step').at(-1),
    drawn: performance.getEntriesByName('attnscope:heatmap-drawn').at(-1).startTime,
  }));
  expect(reads.length).toBeGreaterThan(0);
  expect(drawn).toBeGreaterThan(trip.startTime + trip.duration);
  for (const t of reads) expect(t).toBeGreaterThan(drawn);
  expect(errors).toEqual([]);
  await page.close();
});

it('keeps the main map\'s canvas bitmap across a press of Next (a resize reallocates it) and crops it to the map', async () => {
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'toy-en-de', s: 'i can eat apple', step: 2 })}`);
  const canvas = () => page.evaluate(() => {
    const c = document.querySelector('#heatmap canvas');
    const box = c.parentElement; // the map's scroll box
    const grid = JSON.parse(c.dataset.grid);
    const dpr = c.width / parseFloat(c.style.width);
    const mapHeight = parseFloat(c.style.height) + parseFloat(c.style.marginBottom); // the map's layout height
    const ctx = c.getContext('2d');
    const spare = c.height - Math.ceil(mapHeight * dpr); // bitmap rows below the map
    const below = spare > 0 ? ctx.getImageData(0, c.height - spare, c.width, spare).data : [];
    const lastRow = ctx.getImageData(Math.round((grid.x + 2) * dpr), Math.round((grid.y + (grid.rows - 0.5) * grid.ch) * dpr), 1, 1).data;
    return {
      width: c.width, height: c.height, rows: grid.rows, boxHeight: box.clientHeight, mapHeight: Math.round(mapHeight),
      gridBottom: grid.y + grid.rows * grid.ch, clearBelow: below.every((v) => v === 0), lastRowInked: lastRow[3] > 0,
      scrollsDown: box.scrollHeight > box.clientHeight && getComputedStyle(box).overflowY !== 'hidden',
    };
  });
  const opened = await canvas();
  expect(opened.rows).toBe(2);
  expect(opened.height).toBe(opened.mapHeight); // a new map's bitmap is its size (device pixel ratio 1 here)
  await page.click('#next'); // the map outgrows its bitmap: a new one with room for more rows
  await idle(page);
  const before = await canvas();
  expect(before.rows).toBe(3);
  expect(before.height).toBeGreaterThan(before.mapHeight);
  await page.click('#prev');
  await idle(page);
  const after = await canvas();
  expect(after.rows).toBe(2);
  expect([after.width, after.height]).toEqual([before.width, before.height]); // the same bitmap
  for (const m of [opened, before, after]) {
    expect(m.boxHeight).toBe(m.mapHeight); // the box shows the map, not the spare rows
    expect(m.gridBottom).toBeLessThanOrEqual(m.mapHeight);
    expect(m.clearBelow).toBe(true);
    expect(m.lastRowInked).toBe(true);
    expect(m.scrollsDown).toBe(false);
  }
  await page.click('#next');
  await idle(page);
  const back = await canvas();
  expect(back).toEqual(before); // the same bitmap again, the spare rows cleared
  // The width comes from the ResizeObserver: a narrower window redraws the map narrower.
  await page.setViewportSize({ width: 320, height: 900 });
  await page.waitForFunction((w) => document.querySelector('#heatmap canvas').width < w, before.width);
  expect(await page.evaluate(() => {
    const c = document.querySelector('#heatmap canvas');
    return parseFloat(c.style.width) <= c.closest('.hm').clientWidth;
  })).toBe(true);
  expect(errors).toEqual([]);
  await page.close();
});
