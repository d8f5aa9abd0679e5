// The training timeline is the toy model's (the only one with snapshots): with another model it
// says so and runs on a sentence the toy knows, not on the page's sentence.
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { findModel } from '../../web/models.js';
import { openPage, root, screenshot, startBrowser } from './browser.js';

let env;
let toy;
beforeAll(async () => {
  env = await startBrowser();
  toy = await loadModel(join(root, 'models/toy-en-de.safetensors'));
});
afterAll(async () => {
  toy?.dispose();
  await env?.close();
});

const ready = (page) => page.waitForSelector('#an-timeline[data-ready=true][data-model=toy-en-de]', { timeout: 60_000 });

it('says the timeline is the toy model\'s and runs it on a sentence the toy knows when another model is loaded', async () => {
  const { page, errors } = await openPage(env, `/web/index.html?model=multi30k-en-de&s=${encodeURIComponent('A man rides a bike.')}&an=timeline`);
  await ready(page);
  const note = page.locator('#tl-note');
  expect(await note.isVisible()).toBe(true);
  expect(await note.textContent()).toBe(`This is the timeline of the toy model (${findModel('toy-en-de').label}), the only model with training snapshots here, `
    + `not of ${findModel('multi30k-en-de').label}: it runs on “i can eat apple”, a sentence the toy knows.`);
  const s = toy.translate('i can eat apple');
  s.run();
  expect(await page.textContent('#tl-output')).toBe(s.translation);
  const grid = JSON.parse(await page.locator('#timeline-map canvas').getAttribute('data-grid'));
  expect([grid.rows, grid.cols]).toEqual([s.steps, s.source.ids.length]);
  s.dispose();
  await page.locator('#analyses').scrollIntoViewIfNeeded();
  await screenshot(page, 'timeline-other-model', { fullPage: false });
  expect(errors).toEqual([]);
  await page.close();
});

it('runs the page\'s own sentence, with no note, when the toy model is loaded', async () => {
  const { page, errors } = await openPage(env, '/web/index.html?s=we%20can%20eat%20bread&an=timeline');
  await ready(page);
  expect(await page.isHidden('#tl-note')).toBe(true);
  expect(await page.textContent('#tl-output')).toBe('wir konnen brot essen');
  expect(errors).toEqual([]);
  await page.close();
});
