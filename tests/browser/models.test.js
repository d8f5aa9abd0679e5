// The models a reader can reach: every shipped model file is in the page's picker (and in the
// widget's manifest); a link or a widget naming a model that is not there says so, with the ids
// there are, instead of quietly translating with another model.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { models } from '../../web/models.js';
import { idle, openPage, root, safetensorsHeader, screenshot, startBrowser, watchErrors } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

const shipped = () => [
  ...readdirSync(join(root, 'models')).filter((f) => f.endsWith('.safetensors')).map((f) => `../models/${f}`),
  ...readdirSync(join(root, 'models/snapshots')).filter((f) => f.endsWith('.safetensors')).map((f) => `../models/snapshots/${f}`),
].sort();

it('lists every shipped model in the picker, Multi30k de→en included, and translates with it', async () => {
  expect(models.map((m) => m.file).sort()).toEqual(shipped());
  const { page, errors } = await openPage(env, '/web/index.html?model=multi30k-de-en&step=end');
  const offered = await page.locator('#model option').evaluateAll((os) => os.map((o) => o.value));
  expect(offered.sort()).toEqual(models.map((m) => m.id).sort());
  expect(offered).toContain('multi30k-de-en');
  expect(await page.locator('#model').inputValue()).toBe('multi30k-de-en');
  expect(await page.locator('#sentence').inputValue()).toBe('Ein Mann fährt Fahrrad.');
  expect(await page.textContent('#translation')).toMatch(/^A man (is )?rid/i);
  expect(await page.isHidden('#notice')).toBe(true);
  expect(errors).toEqual([]);
  await page.close();
});

it('says on the page when a link names a model it does not have', async () => {
  const { page, errors } = await openPage(env, '/web/index.html?model=multi30k-fr-en&s=Un%20homme');
  const notice = page.locator('#notice');
  expect(await notice.isVisible()).toBe(true);
  expect(await notice.textContent()).toBe(`The link asks for a model this page does not have: there is no model “multi30k-fr-en”: the models are ${models.map((m) => m.id).join(', ')}. Showing “Toy en→de · 1 layer, 1 head” instead; pick another above.`);
  await screenshot(page, 'models-unknown-id', { fullPage: false });
  // Hostile ids are text, never markup.
  const { page: hostile } = await openPage(env, `/web/index.html?model=${encodeURIComponent('<img src=x onerror=alert(1)>')}`);
  expect(await hostile.locator('#notice img').count()).toBe(0);
  expect(await hostile.textContent('#notice')).toContain('“<img src=x onerror=alert(1)>”');
  await hostile.close();
  // Picking a model clears the notice.
  await page.selectOption('#model', 'multi30k-en-de');
  await idle(page);
  expect(await notice.isHidden()).toBe(true);
  expect(errors).toEqual([]);
  await page.close();
});

it('a widget with an unknown model id lists the valid ids', async () => {
  const page = await env.browser.newPage({ viewport: { width: 800, height: 400 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.goto(env.url('/web/blog.html'));
  await page.evaluate(() => {
    const w = document.createElement('attn-scope');
    w.id = 'bad';
    w.setAttribute('model', 'no-such-model');
    w.setAttribute('src', 'i can eat apple');
    document.querySelector('article').prepend(w);
  });
  const why = page.locator('#bad .fallback .why');
  await why.waitFor({ state: 'visible', timeout: 30_000 });
  expect(await why.textContent()).toBe(`there is no model “no-such-model”: the models are ${models.map((m) => m.id).join(', ')} (or give a model file's URL)`);
  expect(errors).toEqual([]);
  await page.close();
});

it('says in each picker label the layers and heads its file has', () => {
  let checked = 0;
  for (const m of models) {
    const shape = m.label.match(/(\d+)(?:\+(\d+))? layers?, (\d+) heads?/);
    if (!shape) continue;
    const config = JSON.parse(safetensorsHeader(readFileSync(join(root, 'web', m.file))).header.__metadata__.config);
    const [, first, second, heads] = shape.map(Number);
    const layers = second ? [config.n_encoder_layers, config.n_decoder_layers] : [config.n_layers ?? config.n_encoder_layers];
    expect([first, ...(second ? [second] : []), heads], m.id).toEqual([...layers, config.n_heads]);
    checked++;
  }
  expect(checked).toBeGreaterThanOrEqual(4); // the toy, both Multi30k transformers and the MLM
});
