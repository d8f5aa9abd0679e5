// The Training panel beyond the toy transformer: the toy RNN with Bahdanau attention trained in
// the page (its alignment goes from flat to sharp, measured here from the attention values the
// engine returned, not by the view's code), the timeline that scrubs back through a finished run,
// the classroom speed that shows every epoch, and a link naming a long run, which asks first.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { idle, openPage, startBrowser } from './browser.js';

const SENTENCE = 'i can eat apple';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

const ready = (page) => page.waitForFunction(() => document.querySelector('#tr-pairs').value.trim() !== '');
const trainingDone = (page) => page.waitForFunction(() => document.querySelector('#training').dataset.training === 'false'
  && window.attnscope.training.history.length > 0, null, { timeout: 120_000 });

/** Each epoch's attention rows (layer 1, head 1) as plain arrays, with the epoch number. */
const maps = (page) => page.evaluate(() => window.attnscope.training.history.map((r) => {
  const a = r.attention;
  const source = a.shape.at(-1);
  return { epoch: r.epoch, exact: r.exact, source, rows: a.attention.map((d) => Array.from(d.subarray(0, source))) };
}));

/** Mean entropy (nats) of the rows, and the largest possible (uniform rows). */
function entropy({ rows, source }) {
  expect(rows.length).toBeGreaterThan(0);
  let sum = 0;
  for (const row of rows) {
    expect(Math.abs(row.reduce((a, p) => a + p, 0) - 1)).toBeLessThan(1e-4);
    sum += row.reduce((h, p) => (p > 0 ? h - p * Math.log(p) : h), 0);
  }
  return { mean: sum / rows.length, uniform: Math.log(source) };
}

it('trains the toy RNN with Bahdanau attention in the page: its alignment goes from flat to sharp', async () => {
  const { page, errors } = await openPage(env, '/web/index.html');
  await ready(page);
  await page.selectOption('#tr-arch', 'rnn-bahdanau');
  expect(await page.isDisabled('#tr-heads')).toBe(true); // an RNN has no heads
  expect(await page.inputValue('#tr-lr')).toBe('0.003');  // the toy RNN's recipe
  await page.fill('#tr-sentence', SENTENCE);
  await page.fill('#tr-epochs', '30');
  await page.uncheck('#tr-stop');
  await page.click('#tr-train');
  await trainingDone(page);
  const epochs = await maps(page);
  const first = entropy(epochs[0]);
  const last = entropy(epochs.at(-1));
  console.log(`[training-rnn] Bahdanau toy RNN: ${epochs.at(-1).exact}/36 exact after ${epochs.at(-1).epoch} epochs; `
    + `alignment entropy ${first.mean.toFixed(3)} nats at epoch 0 (uniform ${first.uniform.toFixed(3)}) -> ${last.mean.toFixed(3)}`);
  expect(epochs.at(-1).exact).toBe(36);
  expect(first.mean).toBeGreaterThan(0.8 * first.uniform); // flat before training
  expect(last.mean).toBeLessThan(0.5 * first.mean);        // sharp after
  // Diagonal with the reordering: "ich konnen apfel essen" looks at can, apple, eat.
  const words = await page.evaluate(() => window.attnscope.training.history.at(-1).attention.source.pieces);
  const strongest = epochs.at(-1).rows.map((row) => words[row.indexOf(Math.max(...row))]);
  console.log(`[training-rnn] strongest source word per step after training: ${strongest.join(' ')}`);
  expect(strongest.slice(1, 4)).toEqual(['can', 'apple', 'eat']);
  const id = await page.evaluate(() => window.attnscope.training.id);
  expect(id).toBe(`trained:e${epochs.at(-1).epoch}.s1.l1.h1.d64.lr0.003.rnn-bahdanau`);
  expect(await page.locator('#tr-heatmap canvas').count()).toBe(1);
  // The page's views use the RNN, and its link names the architecture.
  await page.waitForFunction((name) => window.attnscope.state.model === name && document.querySelector('#app').dataset.done === 'true', id, { timeout: 30_000 });
  await idle(page);
  expect(new URL(page.url()).searchParams.get('model')).toBe(id);
  expect(await page.textContent('#translation')).toBe(await page.textContent('#tr-output'));
  expect(await page.inputValue('#model')).toBe(id);
  expect(await page.locator('#model option:checked').textContent()).toContain('RNN, Bahdanau attention');
  expect(errors).toEqual([]);
  await page.close();
});

it('scrubs back through a finished run: the timeline draws each epoch\'s map as it was recorded', async () => {
  const { page, errors } = await openPage(env, '/web/index.html');
  await ready(page);
  await page.fill('#tr-epochs', '5');
  await page.uncheck('#tr-stop');
  await page.click('#tr-train');
  await trainingDone(page);
  const timeline = page.locator('#tr-timeline');
  expect(await timeline.isEnabled()).toBe(true);
  expect(await timeline.getAttribute('max')).toBe('5');
  expect(await timeline.inputValue()).toBe('5');
  for (const epoch of [0, 2, 5]) {
    await timeline.fill(String(epoch));
    expect(await page.textContent('#tr-map-epoch')).toBe(String(epoch));
    expect(await timeline.getAttribute('aria-valuetext')).toBe(`epoch ${epoch}`);
    expect(await page.getAttribute('#tr-heatmap canvas', 'aria-label')).toContain(`after epoch ${epoch},`);
  }
  expect(errors).toEqual([]);
  await page.close();
});

it('at classroom speed, shows every epoch on screen before the next', async () => {
  const { page, errors } = await openPage(env, '/web/index.html');
  await ready(page);
  await page.fill('#tr-epochs', '6');
  await page.uncheck('#tr-stop');
  await page.selectOption('#tr-speed', 'slow');
  // What each painted frame showed, recorded by the page itself.
  await page.evaluate(() => {
    window.framesShown = new Set();
    const look = () => {
      window.framesShown.add(document.querySelector('#tr-map-epoch').textContent);
      requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  });
  await page.click('#tr-train');
  await trainingDone(page);
  const shown = await page.evaluate(() => [...window.framesShown].map(Number).sort((a, b) => a - b));
  const epochs = (await maps(page)).map((r) => r.epoch);
  console.log(`[training-rnn] classroom speed: epochs ${epochs.join(',')}; frames showed ${shown.join(',')}`);
  expect(epochs).toEqual([0, 1, 2, 3, 4, 5, 6]);
  expect(shown).toEqual(epochs);
  expect(await page.evaluate(() => window.attnscope.training.id)).toBe('trained:e6.s1.l1.h1.d64.lr0.001');
  expect(errors).toEqual([]);
  await page.close();
});

it('asks before a link starts a long training run, and trains only when asked to', async () => {
  const id = 'trained:e900.s1.l1.h1.d64.lr0.001';
  const { page, errors } = await openPage(env, `/web/index.html?model=${encodeURIComponent(id)}`, { wait: false });
  const confirm = page.locator('#tr-confirm');
  await expect.poll(() => confirm.isVisible(), { timeout: 30_000 }).toBe(true);
  expect(await confirm.textContent()).toContain('This link trains a model for 900 epochs');
  // Nothing runs while the question is open.
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => window.attnscope.training.history.length)).toBe(0);
  expect(await page.getAttribute('#training', 'data-training')).toBe('false');
  await page.click('#tr-confirm-go');
  await page.waitForFunction(() => Number(document.querySelector('#training').dataset.epoch) >= 1, null, { timeout: 60_000 });
  await page.click('#tr-pause');
  await trainingDone(page);
  expect(await confirm.isVisible()).toBe(false);
  expect(errors).toEqual([]);
  await page.close();

  const declined = await openPage(env, `/web/index.html?model=${encodeURIComponent(id)}`, { wait: false });
  await expect.poll(() => declined.page.locator('#tr-confirm').isVisible(), { timeout: 30_000 }).toBe(true);
  await declined.page.click('#tr-confirm-no');
  expect(await declined.page.textContent('#tr-error')).toContain('was not trained');
  expect(await declined.page.evaluate(() => window.attnscope.training.history.length)).toBe(0);
  await declined.page.close();
});

it('re-trains a link\'s RNN, named by the engine\'s preset, and shows the default model for a preset it has not', async () => {
  const id = 'trained:e3.s1.l1.h1.d64.lr0.003.rnn-luong';
  const { page, errors } = await openPage(env, `/web/index.html?model=${encodeURIComponent(id)}`);
  await page.waitForFunction((name) => window.attnscope.training.id === name && window.attnscope.state.model === name,
    id, { timeout: 60_000 });
  await idle(page);
  expect(await page.inputValue('#tr-arch')).toBe('rnn-luong');
  expect(await page.locator('#tr-arch option').allTextContents()).toEqual(
    ['Transformer', 'RNN, Bahdanau attention', 'RNN, Luong attention', 'RNN, no attention']);
  expect(await page.isDisabled('#tr-heads')).toBe(true);
  expect(await page.textContent('#tr-dmodel-name')).toBe('hidden size');
  expect(new URL(page.url()).searchParams.get('model')).toBe(id);
  expect(await page.locator('#model option:checked').textContent()).toContain('RNN, Luong attention');
  expect(errors).toEqual([]);
  await page.close();

  const unknown = await openPage(env, `/web/index.html?model=${encodeURIComponent('trained:e3.s1.l1.h1.d64.lr0.003.rnn-elman')}`);
  expect(await unknown.page.evaluate(() => window.attnscope.state.model)).toBe('toy-en-de');
  expect(await unknown.page.evaluate(() => window.attnscope.training.history.length)).toBe(0);
  expect(unknown.errors).toEqual([]);
  await unknown.page.close();
});
