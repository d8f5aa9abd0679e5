// The head-importance sweep on a pool of Web Workers (web/app/worker/sweep-pool.js), in the
// real page: split over 1, 2 and 4 workers (each its own engine), the sweep equals the one the
// page's own engine worker computes alone, number for number; the Analyses card's Run button uses
// the pool (one worker per core, at most 4) and shows the same numbers.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatState, parseState } from '../../web/app/state/state.js';
import { toyDevSet } from '../../web/app/panels/importance-tab.js';
import { idle, openPage, shippedConfig, startBrowser } from './browser.js';

const PAIRS = [
  ['A man rides a bike.', 'Ein Mann fährt Fahrrad.'],
  ['A little girl is playing in the water.', 'Ein kleines Mädchen spielt im Wasser.'],
  ['Two dogs run across the grass.', 'Zwei Hunde rennen über das Gras.'],
];
let env;

/** The pool's module and the models' URLs on the page's window (a string: vitest rewrites import() in functions). */
const withPool = (page) => page.evaluate("Promise.all([import('/web/app/worker/sweep-pool.js'), import('/web/models.js')]).then(([pool, models]) => {"
  + ' window.sweepTest = { SweepPool: pool.SweepPool, url: (id) => models.modelUrl(models.findModel(id)) }; })');

beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

it('splits a Multi30k sweep (Δ log-likelihood and Δ BLEU) over 1, 2 and 4 workers with the one-worker sweep\'s numbers', async () => {
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'multi30k-en-de', s: 'A man rides a bike.' })}`);
  await withPool(page);
  const out = await page.evaluate(async (pairs) => {
    const { SweepPool, url: urlOf } = window.sweepTest;
    const url = urlOf('multi30k-en-de');
    // The page's engine worker, alone, the whole sweep in one call.
    const single = await window.attnscope.engine.request('importance', { url, pairs, bleu: true });
    const pooled = {};
    for (const n of [1, 2, 4]) {
      const pool = new SweepPool(n);
      const progress = [];
      pooled[n] = { result: await pool.importance({ url, pairs, bleu: true }, (p) => progress.push(p)), progress, size: pool.size };
      pool.dispose();
    }
    return { single, pooled };
  }, PAIRS);
  const config = shippedConfig('multi30k-en-de');
  const heads = (config.n_encoder_layers + 2 * config.n_decoder_layers) * config.n_heads; // encoder, self and cross
  expect(out.single.heads).toHaveLength(heads);
  expect(out.single.heads.every((h) => Number.isFinite(h.deltaLogLikelihood) && Number.isFinite(h.deltaBleu))).toBe(true);
  for (const n of [1, 2, 4]) {
    const { result, progress, size } = out.pooled[n];
    expect(size).toBe(n);
    expect(result, `${n} workers`).toEqual(out.single);
    expect(progress.at(-1), `${n} workers`).toEqual({ done: heads, total: heads });
    expect(Math.max(...progress.map((p) => p.done))).toBe(heads);
  }
  expect(errors).toEqual([]);
  await page.close();
});

it('the Run button sweeps on the pool (one worker per core, at most 4) and shows the one-worker numbers', async () => {
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'toy-en-de', an: 'importance' })}`);
  const workers = () => page.workers().filter((w) => w.url().endsWith('/web/page-worker.js')).length;
  expect(workers()).toBe(1);
  await page.click('#an-tab-importance');
  await page.click('#hi-run');
  await page.waitForSelector('#an-importance[data-state=done]', { timeout: 60_000 });
  await idle(page);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  expect(workers()).toBe(1 + Math.min(Math.max(cores, 1), 4));
  expect(await page.locator('#hi-progress').evaluate((b) => [b.value, b.max])).toEqual([3, 3]);
  await withPool(page);
  const single = await page.evaluate((pairs) => window.attnscope.engine.request('importance', { url: window.sweepTest.url('toy-en-de'), pairs }), toyDevSet());
  const shown = await page.locator('#hi-most li').evaluateAll((li) => li.map((x) => [x.dataset.site, Number(x.dataset.value)]));
  const sorted = [...single.heads].sort((a, b) => a.deltaLogLikelihood - b.deltaLogLikelihood);
  expect(shown).toEqual(sorted.map((h) => [h.site, h.deltaLogLikelihood]));
  expect(errors).toEqual([]);
  await page.close();
});
