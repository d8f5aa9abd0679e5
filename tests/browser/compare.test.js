// The compare view: an RNN with attention beside the toy transformer on the same
// sentence, their steps in sync (Next, Back, a forced token), each pane's map checked cell by
// cell against the engine run here in Node through web/attnscope.js; the URL round-trip; the
// architecture of both families in words. The RNN is a random-weight golden model
// (tests/golden/rnn/, offered to the page by withGoldenRnns): its numbers are the engine's
// whatever it translates.
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { formatState, parseState } from '../../web/app/state/state.js';
import { FROZEN_TOY, GOLDEN_RNNS, hoverCell, openPage, root, screenshot, startBrowser } from './browser.js';

const SENTENCE = 'i can eat apple';
const RNN = GOLDEN_RNNS.find((m) => m.id === 'test-rnn-bahdanau');
let env;
let toy;
let rnn;
beforeAll(async () => {
  env = await startBrowser();
  toy = await loadModel(FROZEN_TOY);
  rnn = await loadModel(join(root, 'tests/golden/rnn/gru_bahdanau_additive.safetensors'));
});
afterAll(async () => {
  toy?.dispose();
  rnn?.dispose();
  await env?.close();
});

/** Waits until the page and the compare view have no engine request in flight. */
const settle = (page) => page.evaluate(() => window.attnscope.idle());
const pane = (page, side) => page.locator(`#compare-view .cv-pane[data-pane="${side}"]`);

/** The engine's main-site rows of `model` on SENTENCE after `steps` greedy steps (forcing `forced`). */
function engineRows(model, steps, forced = new Map()) {
  const s = model.translate(SENTENCE);
  const rows = [];
  try {
    for (let k = 0; k < steps && !s.done; k++) {
      const record = forced.has(k) ? s.force(forced.get(k)) : s.step();
      rows.push(Array.from(record.expansions[0].attention.cross.data));
    }
    const ids = s.state().live[0]?.ids ?? s.state().nbest[0]?.ids;
    return { rows, tokens: ids.map((id) => model.vocab('target')[id]) };
  } finally {
    s.dispose();
  }
}

/** Every shown cell of a pane's heatmap (rows `which`) equals the engine's number. */
async function expectMap(page, side, expected, which) {
  const p = pane(page, side);
  const canvas = p.locator('canvas');
  const grid = JSON.parse(await canvas.getAttribute('data-grid'));
  expect([grid.rows, grid.cols]).toEqual([expected.length, expected[0].length]);
  for (const r of which) {
    for (let c = 0; c < grid.cols; c++) {
      await hoverCell(page, canvas, r, c);
      await expect.poll(() => p.locator('.hm-tip').getAttribute('data-col')).toBe(String(c));
      expect(await p.locator('.hm-tip').getAttribute('data-row')).toBe(String(r));
      expect(Number(await p.locator('.hm-tip').getAttribute('data-value'))).toBe(expected[r][c]);
    }
  }
  await page.mouse.move(0, 0);
}

it('runs an RNN beside the transformer in sync (Next, Back, force), each map the engine\'s, and keeps it in the URL', async () => {
  const { page, errors } = await openPage(env, `/web/index.html?s=${encodeURIComponent(SENTENCE)}&model=toy-en-de&compare=${RNN.id}&step=1`, { goldenRnns: true });
  await settle(page);
  expect(await page.locator('#compare-view').isVisible()).toBe(true);
  expect(await page.inputValue('#compare')).toBe(RNN.id);
  expect(await pane(page, 'page').locator('.cv-title').textContent()).toBe('Toy en→de · 1 layer, 1 head');
  expect(await pane(page, 'other').locator('.cv-title').textContent()).toBe(RNN.label);

  // The architecture of both families, in words, from each model's config.
  const tc = toy.info.config;
  const rc = rnn.info.config;
  expect(await pane(page, 'page').locator('.arch-words').textContent()).toBe(
    `Transformer encoder-decoder: 1 encoder layer and 1 decoder layer, 1 head per attention, d_model ${tc.d_model}, FFN ${tc.d_ff} (relu), post-LayerNorm, sinusoidal positions; vocabulary 18 source, 17 target words.`);
  expect(await pane(page, 'other').locator('.arch-words').textContent()).toBe(
    `RNN encoder-decoder: GRU encoder (1 layer, ${rc.d_encoder} units), GRU decoder (1 layer, ${rc.d_hidden} units), Bahdanau attention, additive (concat, with v) score, ${rc.d_attention} units, global; vocabulary 18 source, 17 target words.`);

  // Next twice, Back once: both panes at the page's step, each map the engine's.
  for (const [button, steps] of [['#next', 2], ['#next', 3], ['#prev', 2]]) {
    await page.click(button);
    await settle(page);
    expect(await pane(page, 'page').getAttribute('data-steps')).toBe(String(steps));
    expect(await pane(page, 'other').getAttribute('data-steps')).toBe(String(steps));
    expect(new URL(page.url()).searchParams.get('step')).toBe(String(steps));
    const t = engineRows(toy, steps);
    const r = engineRows(rnn, steps);
    expect(await pane(page, 'page').locator('.cv-output').getAttribute('data-tokens')).toBe(t.tokens.join(' '));
    expect(await pane(page, 'other').locator('.cv-output').getAttribute('data-tokens')).toBe(r.tokens.join(' '));
    await expectMap(page, 'page', t.rows, [steps - 1]);
    await expectMap(page, 'other', r.rows, [steps - 1]);
  }

  // Force a token at step 3 on the page: the RNN takes it too.
  await page.click('#next');
  await settle(page);
  await page.locator('#bars button.bar[data-token="lesen"]').click();
  await settle(page);
  expect(new URL(page.url()).searchParams.getAll('force')).toEqual(['2:lesen']);
  const forced = new Map([[2, 'lesen']]);
  const t = engineRows(toy, 3, forced);
  const r = engineRows(rnn, 3, forced);
  expect(r.tokens[2]).toBe('lesen');
  expect(await pane(page, 'other').locator('.cv-output').getAttribute('data-tokens')).toBe(r.tokens.join(' '));
  await expectMap(page, 'page', t.rows, [0, 1, 2]);
  await expectMap(page, 'other', r.rows, [0, 1, 2]);
  await screenshot(page, 'compare-rnn-transformer');

  // A reload restores the compare view at the same step, forced token included.
  const url = new URL(page.url());
  expect(url.searchParams.get('compare')).toBe(RNN.id);
  await page.reload();
  await settle(page);
  expect(page.url()).toBe(url.href);
  expect(await page.locator('#compare-view').isVisible()).toBe(true);
  expect(await pane(page, 'other').getAttribute('data-steps')).toBe('3');
  expect(await pane(page, 'other').locator('.cv-output').getAttribute('data-tokens')).toBe(r.tokens.join(' '));
  await expectMap(page, 'other', r.rows, [0, 1, 2]);
  await expectMap(page, 'page', t.rows, [2]);

  // Switched off: gone from the page and the URL.
  await page.selectOption('#compare', '');
  await settle(page);
  expect(await page.locator('#compare-view').isVisible()).toBe(false);
  expect(new URL(page.url()).searchParams.get('compare')).toBeNull();

  // Another model picked, and Next pressed twice at once while it loads: it still ends in sync.
  await page.click('#first');
  await settle(page);
  await page.selectOption('#compare', 'test-rnn-luong');
  await page.click('#next');
  await page.click('#next');
  await settle(page);
  expect(await pane(page, 'page').getAttribute('data-steps')).toBe('2');
  expect(await pane(page, 'other').getAttribute('data-steps')).toBe('2');
  expect(await page.evaluate(() => window.attnscope.compare.snapshot.url)).toMatch(/lstm_luong_dot_feed_local\.safetensors$/);
  expect(errors).toEqual([]);
  await page.close();
});

it('compares attention with none: the no-attention RNN\'s pane says why it has no map, and still steps in sync', async () => {
  const none = await loadModel(join(root, 'tests/golden/rnn/gru_none.safetensors'));
  try {
    const { page, errors } = await openPage(env, `/web/index.html?s=${encodeURIComponent(SENTENCE)}&model=test-rnn-bahdanau&compare=test-rnn-none&step=2`, { goldenRnns: true });
    await settle(page);
    expect(await pane(page, 'page').getAttribute('data-site')).toBe('cross');
    expect(await pane(page, 'other').getAttribute('data-site')).toBe('');
    expect(await pane(page, 'other').locator('.cv-note').textContent()).toMatch(/^This model has no attention/);
    expect(await pane(page, 'other').locator('canvas').isVisible()).toBe(false);
    expect(await pane(page, 'other').locator('.arch-words').textContent()).toMatch(/^RNN encoder-decoder: GRU encoder \(2 layers, 3 units\), GRU decoder \(1 layer, 6 units\), no attention: the decoder starts from, and is fed at every step, the encoder's final state;/);
    const s = none.translate(SENTENCE);
    s.step();
    s.step();
    expect(await pane(page, 'other').getAttribute('data-steps')).toBe('2');
    expect(await pane(page, 'other').locator('.cv-output').getAttribute('data-tokens')).toBe(s.state().live[0].ids.map((id) => none.vocab('target')[id]).join(' '));
    s.dispose();
    await expectMap(page, 'page', engineRows(rnn, 2).rows, [0, 1]);
    expect(errors).toEqual([]);
    await page.close();
  } finally {
    none.dispose();
  }
});

it('round-trips the compared model and "last state only" through the URL codec; an unknown model is dropped', () => {
  const state = { ...parseState(''), s: SENTENCE, compare: 'multi30k-en-de', iv: { attention: [], maskHeads: [], skip: [], lastSourceState: true } };
  const query = formatState(state);
  expect(new URLSearchParams(query).get('compare')).toBe('multi30k-en-de');
  expect(new URLSearchParams(query).get('lastsrc')).toBe('1');
  expect(parseState(query)).toEqual(state);
  expect(parseState('?compare=no-such-model').compare).toBeNull();
  expect(new URLSearchParams(formatState(parseState(''))).has('compare')).toBe(false);
});
