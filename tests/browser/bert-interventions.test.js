// "Break the model" on every model family, in Debian's Chromium: interventions made on a
// translation model (a preset, a link's mask= or skip=) carry over to the encoder-only masked LM
// only where it takes them (its site table and info.refusedInterventions), and the page shows its
// fill-mask instead of refusing to translate; on the masked LM a head switched off changes the
// fill-mask probabilities (and switched back on restores them), lives in the URL, and the
// Analyses card (rollout, ‖α·f(x)‖, q·kᵀ before the softmax, pattern classes) shows the engine's
// numbers. Reference numbers come from the same engine run in this Node process (web/attnscope.js).
import { expect, it } from 'vitest';
import { formatState, parseState } from '../../web/app/state/state.js';
import { hoverCell, watchErrors } from './browser.js';
import { browserWithModel } from './with-model.js';

const MLM = 'multi30k-en-mlm';
const TEXT = 'a man is riding a [MASK] .';
const t = browserWithModel('models/multi30k-en-mlm.safetensors');

const pathFor = (changes) => `/web/index.html${formatState({ ...parseState(''), ...changes })}`;
const params = (page) => new URL(page.url()).searchParams;
const settle = (page) => page.evaluate(() => window.attnscope.idle());

async function open(path, waitFor = '#encoder[data-renders]') {
  const page = await t.env.browser.newPage({ viewport: { width: 1280, height: 1000 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.goto(t.env.url(path));
  await page.waitForSelector(waitFor, { timeout: 60_000 });
  await settle(page);
  return { page, errors };
}

/** The fill-mask guesses the page shows: [[{token, prob}]] per [MASK]. */
const shownGuesses = (page) => page.locator('.enc-mask').evaluateAll((figs) => figs.map((f) => [...f.querySelectorAll('li')]
  .map((li) => ({ token: li.dataset.token, prob: Number(li.dataset.prob) }))));
/** The engine's, in Node. */
const engineGuesses = (interventions = {}) => t.model.fillMask(TEXT, { topK: 5, interventions }).masks
  .map((m) => m.topK.map((c) => ({ token: c.token, prob: c.prob })));

/** Waits for the encoder page's next drawing after `act`. */
async function redrawn(page, act) {
  const before = Number(await page.getAttribute('#encoder', 'data-renders'));
  await act();
  await page.waitForFunction((n) => Number(document.querySelector('#encoder').dataset.renders) > n, before, { timeout: 30_000 });
  await settle(page);
}

/** What the encoder-only page must show once it took the interventions it could. */
async function expectEncoderPage(page, errors) {
  expect(await page.isVisible('#encoder')).toBe(true);
  for (const id of ['#stepper', '#output-panel', '#attention', '#analyses']) expect(await page.isVisible(id), id).toBe(false);
  expect(await page.textContent('#arch-family')).toBe('BERT encoder-only');
  expect(await page.isHidden('#error')).toBe(true);
  expect(await page.isHidden('#break-error')).toBe(true);
  expect(await page.locator('.enc-mask').count()).toBe(1);
  expect(errors).toEqual([]);
}

it('a preset made on the translation model, then the masked LM: only what it takes carries over', async () => {
  const { page, errors } = await open(pathFor({ s: 'i can eat apple' }), '#app[data-renders]');
  await page.click('#break summary');
  await page.click('[data-preset=only-decoder-self]'); // skips encoder self-attention and cross-attention
  await settle(page);
  expect(params(page).getAll('skip')).toEqual(['encoderSelfAttention', 'crossAttention']);
  await page.fill('#sentence', TEXT);
  await redrawn(page, () => page.selectOption('#model', MLM));
  await expectEncoderPage(page, errors);
  // The masked LM has no cross-attention: that skip is dropped; its own self-attention's is kept.
  expect(params(page).getAll('skip')).toEqual(['encoderSelfAttention']);
  expect(await shownGuesses(page)).toEqual(engineGuesses({ skip: ['encoderSelfAttention'] }));
  expect(await page.isChecked('#skip-encoderSelfAttention')).toBe(true);
  expect(await page.textContent('#break-count')).toBe('1 active');
  // Only what it takes is offered: no decoder's skips, no "copy the source encoding", two presets.
  for (const k of ['decoderSelfAttention', 'crossAttention']) expect(await page.isVisible(`#skip-${k}`), k).toBe(false);
  expect(await page.isVisible('#copy-source')).toBe(false);
  expect(await page.isVisible('#last-state')).toBe(false);
  expect(await page.locator('[data-preset]:visible').evaluateAll((b) => b.map((x) => x.dataset.preset))).toEqual(['no-ffn', 'no-layernorm']);
  expect(await page.textContent('label:has(#skip-encoderSelfAttention)')).toContain('Self-attention');
  await page.close();
});

it('a link with mask= of the translation model opens the masked LM without it', async () => {
  const { page, errors } = await open(`${pathFor({ model: MLM, s: TEXT })}&mask=encoder.0.1`);
  await expectEncoderPage(page, errors);
  expect(params(page).getAll('mask')).toEqual([]);
  expect(await shownGuesses(page)).toEqual(engineGuesses());
  expect(await page.isHidden('#break-count')).toBe(true);
  await page.close();
});

it('a link with skip= keeps the skips the masked LM takes and drops the others', async () => {
  const { page, errors } = await open(`${pathFor({ model: MLM, s: TEXT })}&skip=crossAttention&skip=ffn`);
  await expectEncoderPage(page, errors);
  expect(params(page).getAll('skip')).toEqual(['ffn']);
  const broken = engineGuesses({ skip: ['ffn'] });
  expect(broken).not.toEqual(engineGuesses());
  expect(await shownGuesses(page)).toEqual(broken);
  expect(await page.textContent('#enc-modified')).toBe('Modified model: no FFN.');
  await page.close();
});

it('switches a head off and on again: the fill-mask probabilities follow, and the URL keeps it', async () => {
  const { page, errors } = await open(pathFor({ model: MLM, s: TEXT }));
  const plain = engineGuesses();
  expect(await shownGuesses(page)).toEqual(plain);
  await page.click('#break summary');
  const box = page.locator('input.mask[data-site=self][data-layer="0"][data-head="1"]');
  await redrawn(page, () => box.check());
  const off = engineGuesses({ maskHeads: [{ site: 'self', layer: 0, head: 1 }] });
  expect(off).not.toEqual(plain);
  expect(await shownGuesses(page)).toEqual(off);
  expect(params(page).getAll('mask')).toEqual(['self.0.1']);
  expect(await page.textContent('#enc-modified')).toBe('Modified model: self-attention layer 1 head 2 masked.');
  await redrawn(page, () => box.uncheck());
  expect(await shownGuesses(page)).toEqual(plain);
  expect(params(page).getAll('mask')).toEqual([]);
  expect(await page.isHidden('#enc-modified')).toBe(true);

  // The link with the head switched off opens with it off.
  const linked = await open(`${pathFor({ model: MLM, s: TEXT })}&mask=self.0.1`);
  expect(await shownGuesses(linked.page)).toEqual(off);
  expect(await linked.page.isChecked('input.mask[data-site=self][data-layer="0"][data-head="1"]')).toBe(true);
  expect(linked.errors).toEqual([]);
  await linked.page.close();
  expect(errors).toEqual([]);
  await page.close();
});

/** The exact value the heatmap in `scope` shows in cell (r, c) (its tooltip's data-value). */
async function cellValue(page, scope, r, c) {
  const canvas = page.locator(`${scope} canvas`).first();
  await hoverCell(page, canvas, r, c);
  const tip = page.locator(`${scope} .hm-tip`).first();
  await expect.poll(async () => `${await tip.getAttribute('data-row')},${await tip.getAttribute('data-col')}`).toBe(`${r},${c}`);
  return Number(await tip.getAttribute('data-value'));
}

it('the Analyses card of the masked LM: rollout, ‖α·f(x)‖, q·kᵀ and pattern classes are the engine\'s, head switched off too', async () => {
  const { page, errors } = await open(`${pathFor({ model: MLM, s: TEXT })}&mask=self.0.1`);
  const interventions = { maskHeads: [{ site: 'self', layer: 0, head: 1 }] };
  const a = t.model.textAnalysis(TEXT, { interventions });
  const plain = t.model.textAnalysis(TEXT);
  expect(Array.from(a.valueWeighted.self.data)).not.toEqual(Array.from(plain.valueWeighted.self.data));
  const T = a.tokens.length;
  expect(await page.isVisible('#enc-analyses')).toBe(true);
  expect(await page.textContent('#enc-analyses h2')).toBe('Analyses');
  expect(await page.getAttribute('#ea-rollout-map', 'data-shape')).toBe(`${T}x${T}`);
  for (const [r, c] of [[0, 0], [2, 3], [T - 1, 1]]) {
    expect(await cellValue(page, '#ea-rollout', r, c)).toBeCloseTo(a.rollout.data[r * T + c], 6);
  }
  // Layer 2, head 3, query 6 ([MASK]): the value-weighted map and the scores before and after the softmax.
  await page.selectOption('#ea-layer', '1');
  await page.selectOption('#ea-head', '2');
  await page.selectOption('#ea-query', '6');
  await expect.poll(() => page.textContent('#ea-factor caption')).toBe(`Layer 2, head 3, query 6 “${a.tokens[6]}”`);
  const vw = a.valueWeighted.self.data;
  for (const [r, c] of [[6, 0], [1, 5]]) {
    expect(await cellValue(page, '#ea-vnorm', r, c)).toBeCloseTo(vw[((1 * 4 + 2) * T + r) * T + c], 6);
  }
  const { logits, weights } = t.model.textAttentionLogits(TEXT, { site: 'self', layer: 1, head: 2, query: 6, interventions });
  const rows = await page.locator('#ea-factor tbody tr').evaluateAll((trs) => trs.map((tr) => [Number(tr.dataset.logit), Number(tr.dataset.weight)]));
  expect(rows).toEqual(Array.from(logits, (l, i) => [l, weights[i]]));
  const patterns = await page.locator('#ea-patterns td[data-pattern]').evaluateAll((tds) => tds.map((td) => td.dataset.pattern));
  expect(patterns).toEqual(a.patterns);
  expect(errors).toEqual([]);
  await page.close();
});
