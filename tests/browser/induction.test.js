// The Training panel's induction-heads preset in Chromium (Olsson et al. 2022): the 2-layer
// attention-only model trains in the page's worker on in-context bigrams (src/train/
// successor_walks.h) until some layer-2 head's prefix-matching score on the probes (random
// symbols repeated twice; src/analysis/induction.h) exceeds THRESHOLD: an induction head has
// formed, fed by a layer-1 previous-token head. Prints the steps and seconds it took, the probes'
// two half losses and the best heads then (docs/training.md has the figures).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPage, screenshot, startBrowser } from './browser.js';

/**
 * The layer-2 prefix-matching score that counts as an induction head. Attention spread evenly
 * over the context scores about 0.05 on the probes, a head that looks back by position about 0;
 * the heads that form reach 0.8-1.
 */
const THRESHOLD = 0.5;
/** How long the preset may train before the test gives up (the figure measured is well below it). */
const BUDGET_MS = 480_000;

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

/** The grid's cells as the engine's numbers: [{layer, head, prefixMatching, copying, previousToken}]. */
const scores = (page) => page.$$eval('#ih-grid td', (cells) => cells.map((td) => ({
  layer: Number(td.dataset.layer), head: Number(td.dataset.head),
  prefixMatching: Number(td.dataset.prefixMatching), copying: Number(td.dataset.copying),
  previousToken: Number(td.dataset.previousToken),
})));
const losses = (page) => page.$eval('#induction', (el) => ({ ...el.dataset }));

it('trains the induction preset until a layer-2 head prefix-matches', async () => {
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
  await page.waitForFunction((threshold) => [...document.querySelectorAll('#ih-grid td[data-layer="1"]')]
    .some((td) => Number(td.dataset.prefixMatching) > threshold), THRESHOLD, { timeout: BUDGET_MS, polling: 500 });
  const wall = (Date.now() - start) / 1000;
  const formed = await losses(page);
  await page.click('#ih-pause');
  await page.waitForFunction(() => document.querySelector('#induction').dataset.training === 'false', null, { timeout: 120_000 });

  const d = await losses(page);
  const first = Number(d.lossFirstHalf);
  const repeated = Number(d.lossRepeatedHalf);
  const heads = await scores(page);
  const bestBy = (layer, key) => heads.filter((s) => s.layer === layer).reduce((a, b) => (b[key] > a[key] ? b : a));
  const best = (layer) => bestBy(layer, 'prefixMatching');
  const previous = bestBy(0, 'previousToken');
  console.log(`[induction] a layer-2 head's prefix matching passed ${THRESHOLD} after ${formed.updates} steps `
    + `(epoch ${formed.epoch}), ${Number(formed.seconds).toFixed(1)} s of training (${wall.toFixed(1)} s wall); `
    + `after the pause (epoch ${d.epoch}): repeated half ${repeated.toFixed(3)} vs first half ${first.toFixed(3)} nats per token, `
    + `best prefix matching: layer 1 head ${best(0).head + 1} ${best(0).prefixMatching.toFixed(3)}, `
    + `layer 2 head ${best(1).head + 1} ${best(1).prefixMatching.toFixed(3)} (copying ${best(1).copying.toFixed(3)}); `
    + `best previous-token head: layer 1 head ${previous.head + 1} ${previous.previousToken.toFixed(3)}`);
  expect(best(1).prefixMatching).toBeGreaterThan(THRESHOLD);
  expect(best(0).prefixMatching).toBeLessThan(THRESHOLD); // the lookup is in layer 2, not a layer-1 shortcut
  expect(first - repeated).toBeGreaterThan(1); // and it predicts the repeated half from the first
  expect(best(1).copying).toBeGreaterThan(0.5); // it copies what it attends to
  expect(previous.previousToken).toBeGreaterThan(0.5); // fed by a previous-token head (untrained: about 0.15)
  // The map is the last layer's strongest prefix-matching head, drawn from the engine's tensor.
  expect(await page.textContent('#ih-head')).toBe(`layer 2, head ${best(1).head + 1}`);
  expect(await page.locator('#ih-heatmap canvas').count()).toBe(1);
  expect(await page.locator('#ih-curves polyline').count()).toBe(2);
  expect(await page.isHidden('#ih-error')).toBe(true);
  await screenshot(page, 'induction-preset');
  expect(errors).toEqual([]);
  await page.close();
}, BUDGET_MS + 120_000);
