// The page's Training panel: the toy grammar's 36 pairs trained in the page with a
// fixed seed. The cross-attention entropy of "i can eat apple" (computed here from the attention
// values the page's engine returned for each epoch, not by the view's code) falls from epoch 0 to
// the end; the exact count reaches 36/36; every view then uses the trained model and the URL names
// it (opening that URL trains it again, to the same translation); the downloaded .safetensors
// loads in the native CLI and translates "i can eat apple" as the page does. Bad pair lines are
// reported as text.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { idle, openPage, root, screenshot, startBrowser } from './browser.js';

const CLI = join(root, 'build/native/attnscope-cli');
const SENTENCE = 'i can eat apple';
const lines = (text) => text.split('\n').map((l) => l.trim()).filter(Boolean);

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

/** Mean entropy (nats) of every attention row (step × layer × head) of one epoch's report. */
function meanEntropy(attention) {
  const [layers, heads, source] = attention.shape;
  let sum = 0;
  let rows = 0;
  for (const step of attention.attention) {
    expect(step.length).toBe(layers * heads * source);
    for (let r = 0; r < layers * heads; r++) {
      const row = step.slice(r * source, (r + 1) * source);
      const total = row.reduce((a, p) => a + p, 0);
      expect(Math.abs(total - 1)).toBeLessThan(1e-4); // an attention row: a distribution
      sum += row.reduce((h, p) => (p > 0 ? h - p * Math.log(p) : h), 0);
      rows++;
    }
  }
  expect(rows).toBeGreaterThan(0);
  return sum / rows;
}

/** The panel's epochs as plain data (Float32Arrays as arrays). */
const history = (page) => page.evaluate(() => window.attnscope.training.history.map((r) => ({
  ...r, attention: r.attention.error ? r.attention : { ...r.attention, attention: r.attention.attention.map((d) => Array.from(d)) },
})));

const trainingDone = (page) => page.waitForFunction(() => document.querySelector('#training').dataset.training === 'false'
  && window.attnscope.training.history.length > 0, null, { timeout: 90_000 });

it('ships the tests\' toy grammar for the panel, and fills the panel with its 36 pairs', async () => {
  const shipped = lines(readFileSync(join(root, 'web/data/toy-en-de.csv'), 'utf8'));
  expect(shipped).toEqual(lines(readFileSync(join(root, 'tests/data/toy/eng_de.csv'), 'utf8')));
  expect(shipped.length).toBe(36);
  const { page, errors } = await openPage(env, '/web/index.html');
  await page.waitForFunction(() => document.querySelector('#tr-pairs').value.trim() !== '');
  expect(lines(await page.inputValue('#tr-pairs'))).toEqual(shipped);
  expect(await page.textContent('#tr-pairs-count')).toBe('36 pairs');
  expect(errors).toEqual([]);
  await page.close();
});

it('trains the toy grammar in the page to 36/36; the attention sharpens; the views, the URL and the download use the model', async () => {
  expect(existsSync(CLI), `${CLI} is missing: build the native engine first`).toBe(true);
  const { page, errors } = await openPage(env, '/web/index.html', { acceptDownloads: true });
  await page.waitForFunction(() => document.querySelector('#tr-pairs').value.trim() !== '');
  await page.fill('#tr-seed', '1');
  await page.fill('#tr-sentence', SENTENCE);
  await page.click('#tr-train');
  // The page stays responsive while training: the main view still steps.
  await page.waitForFunction(() => Number(document.querySelector('#training').dataset.epoch) >= 1, null, { timeout: 60_000 });
  await trainingDone(page);
  const epochs = await history(page);
  const last = epochs.at(-1);
  expect(epochs[0]).toMatchObject({ epoch: 0, loss: null, exact: null });
  expect(epochs.map((r) => r.epoch)).toEqual(epochs.map((_, i) => i));
  expect(last).toMatchObject({ exact: 36, total: 36 });
  expect(await page.textContent('#tr-exact')).toBe('36/36');
  expect(last.loss).toBeLessThan(epochs[1].loss);
  const before = meanEntropy(epochs[0].attention);
  const after = meanEntropy(last.attention);
  console.log(`[training] seed 1: 36/36 after ${last.epoch} epochs; cross-attention entropy of "${SENTENCE}" `
    + `${before.toFixed(3)} nats at epoch 0 -> ${after.toFixed(3)} at epoch ${last.epoch}; loss ${epochs[1].loss.toFixed(3)} -> ${last.loss.toFixed(3)}`);
  expect(after).toBeLessThan(before);
  // The loss curve has a point per epoch; the map is the last epoch's.
  expect(await page.locator('#tr-curve polyline').getAttribute('points')).toMatch(new RegExp(`^(\\S+ ){${last.epoch - 1}}\\S+$`));
  expect(await page.textContent('#tr-map-epoch')).toBe(String(last.epoch));
  expect(await page.locator('#tr-heatmap canvas').count()).toBe(1);

  // Every view now uses the trained model, named in the URL.
  const id = await page.evaluate(() => window.attnscope.training.id);
  expect(id).toBe(`trained:e${last.epoch}.s1.l1.h1.d64.lr0.001`);
  await page.waitForFunction((name) => window.attnscope.state.model === name && document.querySelector('#app').dataset.done === 'true', id, { timeout: 30_000 });
  await idle(page);
  expect(new URL(page.url()).searchParams.get('model')).toBe(id);
  expect(await page.inputValue('#model')).toBe(id);
  const pageTranslation = await page.textContent('#translation');
  expect(pageTranslation).toBe(last.attention.text);
  await screenshot(page, 'training-panel');

  // The download loads in the native CLI and translates the same.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#tr-download')]);
  expect(download.suggestedFilename()).toBe(`attnscope-${id.replace(':', '-')}.safetensors`);
  const file = await download.path();
  const cli = execFileSync(CLI, ['translate', '--model', file, SENTENCE], { encoding: 'utf8' }).trim();
  console.log(`[training] "${SENTENCE}": page "${pageTranslation}", native CLI on the download "${cli}"`);
  expect(cli).toBe(pageTranslation);
  expect(errors).toEqual([]);

  // Opening the URL trains the same model again and shows the same translation.
  const url = new URL(page.url());
  await page.close();
  const again = await openPage(env, `${url.pathname}${url.search}`);
  expect(await again.page.textContent('#translation')).toBe(pageTranslation);
  expect(await again.page.evaluate(() => window.attnscope.training.id)).toBe(id);
  const retrained = await history(again.page);
  expect(retrained.map((r) => [r.epoch, r.exact])).toEqual(epochs.map((r) => [r.epoch, r.exact]));
  expect(retrained.at(-1).loss).toBe(last.loss);
  expect(again.errors).toEqual([]);
  await again.page.close();
});

it('pauses, answers other requests while training, and continues one epoch at a time', async () => {
  const { page, errors } = await openPage(env, '/web/index.html');
  await page.waitForFunction(() => document.querySelector('#tr-pairs').value.trim() !== '');
  await page.fill('#tr-epochs', '300');
  await page.uncheck('#tr-stop');
  await page.click('#tr-train');
  await page.waitForFunction(() => Number(document.querySelector('#training').dataset.epoch) >= 2, null, { timeout: 60_000 });
  // The worker answers the page between epochs: a request made while training returns while training.
  const during = await page.evaluate(async () => {
    const panel = document.querySelector('#training');
    const before = [panel.dataset.training, Number(panel.dataset.epoch)];
    const stats = await window.attnscope.engine.request('stats');
    return { before, after: [panel.dataset.training, Number(panel.dataset.epoch)], sessions: stats.sessions };
  });
  expect(during.before[0]).toBe('true');
  expect(during.after[0]).toBe('true');
  expect(during.sessions).toBe(1);
  expect(await page.isEnabled('#tr-pause')).toBe(true);
  await page.click('#tr-pause');
  await trainingDone(page);
  const paused = Number(await page.getAttribute('#training', 'data-epoch'));
  expect(paused).toBeGreaterThanOrEqual(2);
  expect(paused).toBeLessThan(300);
  expect(await page.evaluate(() => window.attnscope.training.id)).toBe(`trained:e${paused}.s1.l1.h1.d64.lr0.001`);
  await page.click('#tr-step');
  await page.waitForFunction((n) => window.attnscope.training.id === `trained:e${n}.s1.l1.h1.d64.lr0.001`
    && document.querySelector('#training').dataset.training === 'false', paused + 1, { timeout: 30_000 });
  const epochs = await history(page);
  expect(epochs.map((r) => r.epoch)).toEqual(Array.from({ length: paused + 2 }, (_, i) => i));
  expect(errors).toEqual([]);
  await page.close();
});

it('reports bad pair lines as text, and trains edited pairs under a name with their hash, carried by the URL', async () => {
  const { page, errors } = await openPage(env, '/web/index.html');
  await page.waitForFunction(() => document.querySelector('#tr-pairs').value.trim() !== '');
  await page.fill('#tr-pairs', 'i eat,ich esse\nno comma here\n<img src=x onerror=alert(1)>,x,y\n,leer');
  const error = page.locator('#tr-error');
  await expect.poll(() => error.isVisible()).toBe(true);
  const text = await error.textContent();
  expect(text).toContain('line 2: “no comma here” needs exactly one comma between source and target (it has 0)');
  expect(text).toContain('line 3: “<img src=x onerror=alert(1)>,x,y” needs exactly one comma');
  expect(text).toContain('line 4: “,leer” has an empty source');
  expect(await error.locator('img').count()).toBe(0);
  await page.click('#tr-train');
  expect(await page.evaluate(() => window.attnscope.training.history.length)).toBe(0); // nothing sent

  // A new grammar: two pairs in another word order; trained, named with its hash, in the URL.
  await page.fill('#tr-pairs', 'i eat bread,brot esse ich\ni eat apple,apfel esse ich');
  await expect.poll(() => error.isVisible()).toBe(false);
  await page.fill('#tr-sentence', 'i eat apple');
  await page.fill('#tr-epochs', '3');
  await page.uncheck('#tr-stop');
  await page.click('#tr-train');
  await trainingDone(page);
  const id = await page.evaluate(() => window.attnscope.training.id);
  expect(id).toMatch(/^trained:e3\.s1\.l1\.h1\.d64\.lr0\.001\.p[0-9a-f]{8}$/);
  await page.waitForFunction((name) => window.attnscope.state.model === name, id, { timeout: 30_000 });
  await idle(page);
  const q = new URL(page.url()).searchParams;
  expect(q.get('model')).toBe(id);
  expect(q.get('pairs')).toBe('i eat bread,brot esse ich\ni eat apple,apfel esse ich');
  // The views show the sentence the panel watched (the page's was in the toy's words).
  expect(q.get('s')).toBe('i eat apple');
  expect(await page.textContent('#translation')).toBe(await page.textContent('#tr-output'));
  // Another watched sentence is redrawn with the current weights; words the pairs lack and markup are pieces drawn as text, never HTML.
  await page.fill('#tr-sentence', 'i eat bread');
  await page.press('#tr-sentence', 'Enter');
  await page.waitForFunction(() => /\bbread\b/.test(document.querySelector('#tr-map').dataset.source ?? '')
    && document.querySelector('#tr-heatmap canvas')?.getAttribute('aria-label')?.includes('after epoch 3,'));
  expect(await page.textContent('#tr-output')).not.toBe('');
  await page.fill('#tr-sentence', 'i drink <b>beer</b>');
  await page.press('#tr-sentence', 'Enter');
  await page.waitForFunction(() => !/\bbread\b/.test(document.querySelector('#tr-map').dataset.source ?? 'bread'));
  const drawn = await page.getAttribute('#tr-map', 'data-source');
  console.log(`[training] words the pairs lack, in the watched sentence: source pieces "${drawn}", translation "${await page.textContent('#tr-output')}"`);
  expect(drawn).toBe('i drink < b > beer < / b > </s>'); // the engine's pieces (unknown to this model), as text
  expect(await page.locator('#tr-map b').count()).toBe(0);
  expect(errors).toEqual([]);
  await page.close();
});
