// The Training panel's induction-heads preset in Chromium (Olsson et al. 2022): the 2-layer
// attention-only model trains in the page's worker on repeated random symbols (a prefix and the
// halves' lengths random, so that position alone rarely finds the earlier copy) until the
// engine's loss on the probes' repeated half is GAP nats below the first half's, which no model
// can predict: it has learnt to copy from its context. Prints the steps and seconds it took and
// every head's prefix-matching score then (src/analysis/induction.h): measurements
// (docs/training.md), not assertions.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPage, screenshot, startBrowser } from './browser.js';

/** Nats per token the repeated half's loss must fall below the first half's (untrained: about 0). */
const GAP = 1;
/** How long the preset may train before the test gives up (the figure measured is well below it). */
const BUDGET_MS = 480_000;

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

/** The grid's cells as the engine's numbers: [{layer, head, prefixMatching, copying}]. */
const scores = (page) => page.$$eval('#ih-grid td', (cells) => cells.map((td) => ({
  layer: Number(td.dataset.layer), head: Number(td.dataset.head),
  prefixMatching: Number(td.dataset.prefixMatching), copying: Number(td.dataset.copying),
})));
const losses = (page) => page.$eval('#induction', (el) => ({ ...el.dataset }));

it('trains the induction preset until the repeated half is predicted from the first', async () => {
  const { page, errors } = await openPage(env, '/web/index.html');
  await page.click('#induction > summary');
  await page.fill('#ih-epochs', '100000');
  await page.click('#ih-train');
  await page.waitForFunction(() => document.querySelector('#induction').dataset.lossFirstHalf !== '', null, { timeout: 60_000 });
  const untrained = await losses(page);
  expect(Number(untrained.epoch)).toBe(0);
  expect(Math.abs(Number(untrained.lossFirstHalf) - Number(untrained.lossRepeatedHalf))).toBeLessThan(0.5);
  const untrainedScores = await scores(page);
  expect(untrainedScores.length).toBe(8); // 2 layers x 4 heads
  for (const s of untrainedScores) expect(s.prefixMatching).toBeLessThan(0.2); // attention spread over the context

  const start = Date.now();
  await page.waitForFunction((gap) => {
    const d = document.querySelector('#induction').dataset;
    return Number(d.lossFirstHalf) - Number(d.lossRepeatedHalf) >= gap;
  }, GAP, { timeout: BUDGET_MS, polling: 500 });
  const wall = (Date.now() - start) / 1000;
  await page.click('#ih-pause');
  await page.waitForFunction(() => document.querySelector('#induction').dataset.training === 'false', null, { timeout: 120_000 });

  const d = await losses(page);
  const first = Number(d.lossFirstHalf);
  const repeated = Number(d.lossRepeatedHalf);
  const heads = await scores(page);
  const best = (layer) => heads.filter((s) => s.layer === layer).reduce((a, b) => (b.prefixMatching > a.prefixMatching ? b : a));
  console.log(`[induction] repeated half ${repeated.toFixed(3)} vs first half ${first.toFixed(3)} nats per token after `
    + `${d.updates} steps (epoch ${d.epoch}), ${Number(d.seconds).toFixed(1)} s of training (${wall.toFixed(1)} s wall); `
    + `best prefix matching: layer 1 head ${best(0).head + 1} ${best(0).prefixMatching.toFixed(3)}, `
    + `layer 2 head ${best(1).head + 1} ${best(1).prefixMatching.toFixed(3)}`);
  expect(first - repeated).toBeGreaterThanOrEqual(GAP - 0.5); // (a pause lets one more epoch run)
  // The map is the last layer's strongest prefix-matching head, drawn from the engine's tensor.
  expect(await page.textContent('#ih-head')).toBe(`layer 2, head ${best(1).head + 1}`);
  expect(await page.locator('#ih-heatmap canvas').count()).toBe(1);
  expect(await page.locator('#ih-curves polyline').count()).toBe(2);
  expect(await page.isHidden('#ih-error')).toBe(true);
  await screenshot(page, 'induction-preset');
  expect(errors).toEqual([]);
  await page.close();
}, BUDGET_MS + 120_000);
