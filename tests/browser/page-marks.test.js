// The page's performance marks that tests/bench/page_latency.mjs times a press of Next with
// (issue 20): after a press, the map drawn, the next frame, painted (in that order), the round
// trip to the worker, the worker's own time for the step, and each panel's render; and the
// rollout of the Analyses card is drawn once per session, not again at every step.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatState, parseState } from '../../web/app/state.js';
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
  const worker = page.workers().find((w) => w.url().endsWith('/web/app/worker.js'));
  const inWorker = await worker.evaluate(() => performance.getEntriesByName('attnscope:worker:step').map((e) => e.duration));
  expect(inWorker).toHaveLength(1);
  expect(inWorker[0]).toBeGreaterThan(0);
  expect(inWorker[0]).toBeLessThanOrEqual(trip.duration);
  expect(errors).toEqual([]);
  await page.close();
});

it('draws the rollout once per session: a press of Next keeps its map, another sentence redraws it', async () => {
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'toy-en-de', s: 'i can eat apple', step: 1, an: 'rollout' })}`);
  const table = () => page.evaluate(() => {
    const t = document.querySelector('#rollout-map table');
    window.rolloutTables ??= [];
    if (!window.rolloutTables.includes(t.tBodies[0])) window.rolloutTables.push(t.tBodies[0]);
    return { index: window.rolloutTables.indexOf(t.tBodies[0]), rows: t.tBodies[0].rows.length };
  });
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
