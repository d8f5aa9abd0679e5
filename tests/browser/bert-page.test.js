// The page for encoder-only models (web/app/panels/encoder-page.js) with the shipped Multi30k
// masked LM: the translation panels give way to the encoder-only panel; the fill-mask predictions,
// every head's pattern class and the per-layer [CLS]/[SEP]/punctuation/previous/next shares (raw
// and norm-weighted) are the native engine's (attnscope-cli fill-mask / bert-study --json on the
// same text, run here), the precomputed head-ablation map is the committed JSON file's, and a
// live ablation of pasted sentences is the CLI's. Values are compared engine against page, never
// hard-coded, so the test holds for whatever weights models/ ships.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatState, parseState } from '../../web/app/state/state.js';
import { cli } from '../js/helpers.js';
import { hoverCell, root, screenshot, startBrowser, watchErrors } from './browser.js';

const MODEL = join(root, 'models/multi30k-en-mlm.safetensors');
const ABLATION = join(root, 'models/analysis/multi30k-en-mlm.ablation.json');
const TEXT = 'a man is riding a [MASK] . [SEP] the [MASK] is brown , and fast !';
const KINDS = ['cls', 'sep', 'punct', 'prev', 'next'];
let env;

beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

const pathFor = (changes) => `/web/index.html${formatState({ ...parseState(''), ...changes })}`;

async function openEncoder(path) {
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 1000 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.goto(env.url(path));
  await page.waitForSelector('#encoder[data-renders]', { timeout: 60_000 });
  await page.evaluate(() => window.attnscope.idle());
  return { page, errors };
}

/** The exact value heatmap `canvas` shows in cell (r, c) (its tooltip's data-value). */
async function cellValue(page, scope, r, c) {
  const canvas = scope.locator('canvas').first();
  await hoverCell(page, canvas, r, c);
  const tip = scope.locator('.hm-tip').first();
  await expect.poll(async () => `${await tip.getAttribute('data-row')},${await tip.getAttribute('data-col')}`).toBe(`${r},${c}`);
  return Number(await tip.getAttribute('data-value'));
}

it('fills a mask and shows the pattern grid, the shares figure and the precomputed ablation map: the engine\'s numbers', async () => {
  const fill = JSON.parse(cli(['fill-mask', '--model', MODEL, '--json', '--top-k', '5', TEXT]));
  const study = JSON.parse(cli(['bert-study', '--model', MODEL, '--json', TEXT]));
  const file = JSON.parse(readFileSync(ABLATION, 'utf8'));
  const { page, errors } = await openEncoder(pathFor({ model: 'multi30k-en-mlm', s: TEXT }));
  try {
    // The translation panels are hidden; the encoder-only panel shows.
    expect(await page.isVisible('#encoder')).toBe(true);
    for (const id of ['#stepper', '#output-panel', '#logits-panel', '#attention', '#analyses', '#training']) {
      expect(await page.isVisible(id), id).toBe(false);
    }
    // "Break the model" and the Analyses card apply to it too (tests/browser/bert-interventions.test.js).
    expect(await page.isVisible('#break')).toBe(true);
    expect(await page.isVisible('#enc-analyses')).toBe(true);
    expect(await page.textContent('#translate')).toBe('Read');
    expect(await page.textContent('#arch-family')).toBe('BERT encoder-only');

    // Fill-mask: the top 5 of each [MASK], as the CLI says.
    const masks = await page.locator('.enc-mask').evaluateAll((figs) => figs.map((f) => ({
      position: Number(f.dataset.position),
      top: [...f.querySelectorAll('li')].map((li) => ({ token: li.dataset.token, prob: Number(li.dataset.prob) })),
    })));
    expect(masks.map((m) => m.position)).toEqual(fill.masks.map((m) => m.position));
    expect(masks).toHaveLength(2);
    masks.forEach((m, i) => {
      expect(m.top.map((c) => c.token)).toEqual(fill.masks[i].top_k.map((c) => c.token));
      m.top.forEach((c, k) => expect(Math.abs(c.prob - fill.masks[i].top_k[k].prob)).toBeLessThan(1e-5));
    });
    expect(await page.textContent('.enc-pieces mark')).toBe(fill.masks[0].top_k[0].token);

    // The model view: L × H thumbnails, each labelled with the engine's pattern class.
    const L = study.patterns.length;
    const H = study.patterns[0].length;
    const cells = await page.locator('#enc-grid .thumb').evaluateAll((c) => c.map((x) => [Number(x.dataset.layer), Number(x.dataset.head), x.dataset.pattern]));
    expect(cells).toEqual(study.patterns.flatMap((row, l) => row.map((p, h) => [l, h, p])));
    expect(await page.locator('#enc-grid canvas').count()).toBe(L * H);
    const counts = await page.locator('.enc-pattern-counts span').evaluateAll((s) => Object.fromEntries(s.map((x) => [x.dataset.pattern, Number(x.dataset.count)])));
    const want = {};
    for (const p of study.patterns.flat()) want[p] = (want[p] ?? 0) + 1;
    expect(counts).toEqual(want);
    // One thumbnail's cells are the engine's attention weights.
    const T = study.tokens.length;
    const thumb = page.locator('#enc-grid .thumb[data-layer="1"][data-head="2"]');
    const weights = fill.attention.self[1][2];
    // (rows of the lower half: the pattern label covers the top rows)
    for (const [r, c] of [[T - 1, 0], [T - 3, T - 1], [T - 1, 2]]) expect(Math.abs(await cellValue(page, thumb, r, c) - weights[r][c])).toBeLessThan(1e-6);

    // The shares figure: every layer, kind and weighting.
    const bars = await page.locator('#enc-shares tr[data-layer]').evaluateAll((rows) => rows.map((tr) => Object.fromEntries(
      [...tr.querySelectorAll('.sh-bar')].map((b) => [`${b.dataset.weighting}.${b.dataset.kind}`, Number(b.dataset.value)]))));
    expect(bars).toHaveLength(L);
    bars.forEach((row, l) => {
      for (const w of ['raw', 'norm']) for (const k of KINDS) expect(Math.abs(row[`${w}.${k}`] - study.shares[w][l][k]), `${w} ${k} layer ${l}`).toBeLessThan(1e-6);
    });

    // The precomputed ablation map: the file's numbers, its five most important heads, its base accuracy.
    const map = page.locator('#enc-ablation');
    expect(JSON.parse(await map.locator('canvas').getAttribute('data-grid'))).toMatchObject({ rows: L, cols: H });
    for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) expect(await cellValue(page, map, l, h)).toBe(file.ablation.delta[l][h]);
    const top = await page.locator('.enc-top li').evaluateAll((li) => li.map((x) => [Number(x.dataset.layer), Number(x.dataset.head), Number(x.dataset.delta)]));
    const ranked = file.ablation.delta.flatMap((row, l) => row.map((d, h) => [l, h, d])).sort((a, b) => a[2] - b[2]);
    expect(top).toEqual(ranked.slice(0, 5));
    expect(await map.locator('.enc-base b').textContent()).toBe(file.ablation.baseAccuracy.toFixed(4));
    expect(await map.locator('.caption').textContent()).toContain(file.data);
    await screenshot(page, 'bert-page');
    expect(errors).toEqual([]);
  } finally {
    await page.close();
  }
});

it('explains each fill over the input when its card opens: the CLI\'s attribution, per method', async () => {
  const { page, errors } = await openEncoder(pathFor({ model: 'multi30k-en-mlm', s: TEXT }));
  /** The strips once drawn: per [MASK], its position and every input piece's score. */
  const strips = async (method) => {
    await page.waitForSelector(`#enc-attribution[data-state="ready"][data-method="${method}"]`);
    return page.$$eval('#enc-attribution figure.mask-attr', (figs) => figs.map((f) => ({
      position: Number(f.dataset.position),
      tokens: [...f.querySelectorAll('.saliency-text')].map((t) => t.textContent),
      scores: [...f.querySelectorAll('[data-score]')].map((t) => Number(t.dataset.score)),
    })));
  };
  try {
    expect(await page.locator('#enc-attribution figure').count()).toBe(0); // closed: nothing asked
    await page.click('#enc-attribution > summary');
    for (const method of ['gradient-input', 'erasure']) {
      await page.selectOption('#enc-attribution [name="mask-attr-method"]', method);
      const want = JSON.parse(cli(['fill-mask', '--model', MODEL, '--json', '--attribution', method, TEXT])).masks;
      const shown = await strips(method);
      expect(shown).toHaveLength(want.length);
      shown.forEach((s, k) => {
        expect(s.tokens).toEqual(want[k].attribution.source_tokens);
        expect(s.scores).toHaveLength(want[k].attribution.source_scores.length);
        // WASM against the native CLI: the same formula, float rounding apart.
        s.scores.forEach((v, i) => expect(Math.abs(v - want[k].attribution.source_scores[i])).toBeLessThan(1e-4));
      });
    }
    await screenshot(page, 'bert-attribution', { fullPage: false });
    expect(errors).toEqual([]);
  } finally {
    await page.close();
  }
});

it('computes the ablation map of pasted sentences in the worker (the CLI\'s numbers), escapes hostile text, and gives way to a translation model', async () => {
  const sentences = ['two dogs play in the snow .', 'a woman is reading a book .'];
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-'));
  writeFileSync(join(dir, 's.txt'), `${sentences.join('\n')}\n`);
  const native = JSON.parse(cli(['bert-study', '--model', MODEL, '--sentences', join(dir, 's.txt'), '--json'])).ablation;
  const hostile = '<img src=x onerror="window.pwned=1"> a man [MASK] & <b>bold</b>';
  const { page, errors } = await openEncoder(pathFor({ model: 'multi30k-en-mlm', s: hostile }));
  try {
    expect(await page.locator('#encoder img').count()).toBe(0);
    expect(await page.locator('.enc-pieces b, .enc-pieces img').count()).toBe(0);
    expect(await page.evaluate(() => window.pwned)).toBeUndefined();
    expect(await page.textContent('.enc-pieces')).toContain('window'); // the text came through as text

    await page.fill('#enc-sentences', `${sentences.join('\n')}\n\n`);
    expect(await page.textContent('#enc-count')).toBe('2 sentences');
    await page.click('#enc-run');
    await page.waitForFunction(() => window.attnscope.encoder.shown.ablationSource === 'live', null, { timeout: 120_000 });
    await page.evaluate(() => window.attnscope.idle());
    const shown = await page.evaluate(() => window.attnscope.encoder.shown.ablation);
    expect(shown.positions).toBe(native.positions);
    expect(shown.baseCorrect).toBe(native.baseCorrect);
    expect(shown.correct).toEqual(native.correct);
    const map = page.locator('#enc-ablation');
    expect(await cellValue(page, map, 0, 0)).toBe(shown.delta[0][0]);
    expect(Math.abs(shown.delta[0][0] - native.delta[0][0])).toBeLessThan(1e-12);
    expect(await map.locator('.caption').textContent()).toContain('your 2 sentences');

    // A translation model: the translation panels come back, the encoder-only panel goes.
    await page.selectOption('#model', 'toy-en-de');
    await page.fill('#sentence', 'i can eat apple');
    await page.click('#translate');
    await page.waitForFunction(() => Number(document.querySelector('#app').dataset.renders) > 0 && document.querySelector('#app').dataset.busy === 'false');
    expect(await page.isVisible('#encoder')).toBe(false);
    expect(await page.isVisible('#stepper')).toBe(true);
    expect(await page.textContent('#translate')).toBe('Translate');
    // Comparing a translation with an encoder-only model says why it cannot.
    await page.selectOption('#compare', 'multi30k-en-mlm');
    await page.evaluate(() => window.attnscope.idle());
    await expect.poll(() => page.textContent('#compare-view .cv-error')).toContain('an encoder-only model does not translate');
    expect(errors).toEqual([]);
  } finally {
    await page.close();
  }
});

it('an <attn-scope> widget given the encoder-only model says inside itself that it does not translate', async () => {
  const page = await env.browser.newPage({ viewport: { width: 900, height: 700 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.goto(env.url('/tests/browser/fixtures/widget-rnn.html'));
  await page.evaluate(() => {
    const w = document.createElement('attn-scope');
    w.id = 'mlm';
    w.setAttribute('model', 'multi30k-en-mlm');
    w.setAttribute('src', 'a man is riding a [MASK] .');
    document.body.append(w);
  });
  await page.waitForFunction(() => !document.querySelector('#mlm').shadowRoot?.querySelector('.error')?.hidden, null, { timeout: 60_000 });
  expect(await page.locator('#mlm .error').textContent()).toMatch(/is an encoder-only model: it does not translate/);
  expect(await page.evaluate(() => window.hostErrors)).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
});
