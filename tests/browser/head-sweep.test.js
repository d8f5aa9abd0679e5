// The precomputed head-importance sweep on the demo page (web/models.js `heads`, drawn by
// web/app/views/head-importance.js in the Analyses card): heatmaps per site, the Δ log-likelihood /
// Δ BLEU switch, the most and least important heads and the caption, against the file's numbers.
// The file is first answered with a sweep the engine computes in this Node process, in the
// format models/evaluation/head_sweep.py writes (so the drawing is checked whichever sweep the repository
// ships); the last test checks the shipped one: served as JSON, drawn, and kept offline.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { formatState, parseState } from '../../web/app/state/state.js';
import { hoverCell, idle, root, shippedConfig, startBrowser } from './browser.js';

const PAIRS = [
  ['A man rides a bike.', 'Ein Mann fährt Fahrrad.'],
  ['A little girl is playing in the water.', 'Ein kleines Mädchen spielt im Wasser.'],
];
const ROUTE = '**/models/analysis/multi30k-en-de.heads.json';
const CONFIG = shippedConfig('multi30k-en-de');
const HEADS = CONFIG.n_heads;
const layersOf = (site) => (site === 'encoder' ? CONFIG.n_encoder_layers : CONFIG.n_decoder_layers);
let env;
let file; // the sweep, as models/evaluation/head_sweep.py writes it

beforeAll(async () => {
  env = await startBrowser();
  const model = await loadModel(join(root, 'models/multi30k-en-de.safetensors'));
  const sweep = model.headImportance(PAIRS, { bleu: true });
  model.dispose();
  file = {
    model: 'multi30k-en-de.safetensors', data: 'two test pairs', command: 'model.headImportance(PAIRS, {bleu: true})', seconds: 12.3,
    sentences: PAIRS.length, tokens: sweep.tokens, base_log_likelihood: sweep.baseLogLikelihood, base_bleu: sweep.baseBleu,
    heads: sweep.heads.map((h) => ({ site: h.site, layer: h.layer, head: h.head, delta_log_likelihood: h.deltaLogLikelihood, delta_bleu: h.deltaBleu })),
  };
});
afterAll(async () => { await env?.close(); });

const PATH = `/web/index.html${formatState({ ...parseState(''), model: 'multi30k-en-de', s: 'A man rides a bike.', step: 'end', an: 'importance' })}`;

/** The value the tooltip of heatmap `id` shows for cell (r, c). */
async function cellValue(page, id, r, c) {
  await hoverCell(page, page.locator(`#${id} canvas`), r, c);
  const tip = page.locator(`#${id} .hm-tip`);
  await expect.poll(async () => `${await tip.getAttribute('data-row')},${await tip.getAttribute('data-col')}`).toBe(`${r},${c}`);
  return Number(await tip.getAttribute('data-value'));
}

it('draws the model\'s precomputed sweep without running one: heatmaps, metric switch, top and bottom heads, caption', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 1000 }, serviceWorkers: 'block' });
  let asked = 0;
  await context.route(ROUTE, (route) => { asked++; route.fulfill({ json: file }); });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.url(PATH));
  await idle(page);
  await page.waitForSelector('#hi-precomputed[data-state=done][data-model=multi30k-en-de]', { timeout: 30_000 });
  expect(asked).toBe(1);
  expect(await page.getAttribute('#an-importance', 'data-state')).toBeNull(); // no sweep was run

  for (const site of ['encoder', 'self', 'cross']) {
    expect(JSON.parse(await page.locator(`#pre-${site} canvas`).getAttribute('data-grid'))).toMatchObject({ rows: layersOf(site), cols: HEADS });
  }
  const head = (site, layer, h) => file.heads.find((x) => x.site === site && x.layer === layer && x.head === h);
  for (const [site, l, h] of [['cross', 1, 2], ['encoder', layersOf('encoder') - 1, HEADS - 1], ['self', 0, 0]]) {
    expect(await cellValue(page, `pre-${site}`, l, h)).toBe(head(site, l, h).delta_log_likelihood);
  }
  const values = (list) => page.locator(`#pre-${list} li`).evaluateAll((li) => li.map((x) => Number(x.dataset.value)));
  const byLL = file.heads.map((h) => h.delta_log_likelihood).sort((a, b) => a - b);
  expect(await values('most')).toEqual(byLL.slice(0, 3));
  expect(await values('least')).toEqual(byLL.slice(-3).reverse());
  const caption = await page.textContent('#pre-results .caption');
  for (const part of [`BLEU ${file.base_bleu.toFixed(2)}`, `log-likelihood ${file.base_log_likelihood.toFixed(4)} per token`,
    'two test pairs', '(2 pairs,', file.command, '(12 s)']) expect(caption).toContain(part);

  // Δ BLEU.
  await page.selectOption('#pre-metric', 'bleu');
  expect(await page.getAttribute('#pre-results', 'data-metric')).toBe('bleu');
  for (const [site, l, h] of [['cross', 1, 2], ['encoder', layersOf('encoder') - 1, HEADS - 1]]) {
    expect(await cellValue(page, `pre-${site}`, l, h)).toBe(head(site, l, h).delta_bleu);
  }
  const byBleu = file.heads.map((h) => h.delta_bleu).sort((a, b) => a - b);
  expect(await values('most')).toEqual(byBleu.slice(0, 3));
  expect(await values('least')).toEqual(byBleu.slice(-3).reverse());
  await page.mouse.move(0, 0);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(root, 'tests/artifacts/head-sweep-precomputed.png'), fullPage: true, clip: await page.locator('#analyses').boundingBox() });

  // The toy model has none: the section goes away.
  await page.selectOption('#model', 'toy-en-de');
  await idle(page);
  expect(await page.isHidden('#hi-precomputed')).toBe(true);
  expect(errors).toEqual([]);
  await context.close();
});

it('says so when the precomputed sweep cannot be fetched', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 1000 }, serviceWorkers: 'block' });
  await context.route(ROUTE, (route) => route.fulfill({ status: 404, body: 'not found' }));
  const page = await context.newPage();
  await page.goto(env.url(PATH));
  await page.waitForSelector('#hi-precomputed[data-state=error]', { timeout: 30_000 });
  expect(await page.textContent('#pre-results .error')).toMatch(/cannot fetch the precomputed sweep '.*multi30k-en-de\.heads\.json': HTTP 404/);
  await context.close();
});

it('serves the shipped Multi30k sweep as JSON, draws it, and keeps it for offline use with its model', async () => {
  const path = join(root, 'models/analysis/multi30k-en-de.heads.json');
  expect(existsSync(path), `${path} is missing: python3 models/evaluation/head_sweep.py --model models/multi30k-en-de.safetensors --src en --tgt de`).toBe(true);
  const shipped = JSON.parse(readFileSync(path, 'utf8'));
  expect(shipped).toMatchObject({ model: 'multi30k-en-de.safetensors', sentences: 100 });
  expect(shipped.heads).toHaveLength((layersOf('encoder') + 2 * layersOf('self')) * HEADS); // a sweep of another shape is stale
  for (const h of shipped.heads) expect([h.delta_log_likelihood, h.delta_bleu].every(Number.isFinite)).toBe(true);

  const own = await startBrowser(); // its own server, to stop it
  try {
    const res = await fetch(own.url('/models/analysis/multi30k-en-de.heads.json'));
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/json']);
    expect(await res.json()).toEqual(shipped);

    const context = await own.browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    await page.goto(own.url(PATH));
    await page.waitForSelector('#hi-precomputed[data-state=done]', { timeout: 60_000 });
    await page.waitForFunction(() => navigator.serviceWorker?.controller?.state === 'activated', null, { timeout: 30_000 });
    // A second visit, now through the service worker: the model and its sweep go into its cache.
    await page.reload();
    await page.waitForSelector('#hi-precomputed[data-state=done]', { timeout: 60_000 });
    await idle(page);
    const cached = await page.evaluate(async () => Promise.all(['../models/analysis/multi30k-en-de.heads.json', '../models/multi30k-en-de.safetensors']
      .map((p) => caches.match(new URL(p, location.href).href).then(Boolean))));
    expect(cached).toEqual([true, true]);

    own.server.closeAllConnections();
    await new Promise((ok) => own.server.close(ok));
    await page.reload();
    await page.waitForSelector('#hi-precomputed[data-state=done]', { timeout: 60_000 });
    await idle(page);
    expect(await page.textContent('#translation')).not.toBe('');
    const cross = shipped.heads.find((h) => h.site === 'cross' && h.layer === 2 && h.head === 3);
    expect(await cellValue(page, 'pre-cross', 2, 3)).toBe(cross.delta_log_likelihood);
    expect(await page.textContent('#pre-results .caption')).toContain(shipped.command);
    await page.mouse.move(0, 0);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(root, 'tests/artifacts/head-sweep-multi30k.png'), fullPage: true, clip: await page.locator('#analyses').boundingBox() });
    await context.close();
  } finally {
    await own.browser.close();
    own.server.closeAllConnections?.();
    own.server.close();
  }
});
