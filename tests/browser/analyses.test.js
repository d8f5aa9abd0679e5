// The "Analyses" card and the ‖α·f(x)‖ toggle of the demo page in Debian's Chromium: value-norm
// attention, encoder rollout, pattern badges, the vectors (PCA, positional encoding, cosine, the
// Q·Kᵀ row), the head-importance sweep on the toy grammar and the training timeline. Reference
// numbers come from the same engine run in this Node process through web/attnscope.js.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { toyDevSet } from '../../web/app/panels/importance-tab.js';
import { formatState, parseState } from '../../web/app/state/state.js';
import { FROZEN_TOY, hoverCell, idle, root, screenshot, startBrowser, watchErrors } from './browser.js';

const SENTENCE = 'i can eat apple';
let env;
let model;
let session; // the toy model on SENTENCE, greedy to the end, with vectors

beforeAll(async () => {
  env = await startBrowser();
  model = await loadModel(FROZEN_TOY);
  session = model.translate(SENTENCE, { capture: { vectors: true } });
  session.run();
});
afterAll(async () => {
  session?.dispose();
  model?.dispose();
  await env?.close();
});


/** The value the tooltip of `map` (a .hm element) shows for cell (r, c). */
async function cellValue(page, map, r, c) {
  const canvas = map.locator('canvas');
  const tip = map.locator('.hm-tip');
  await hoverCell(page, canvas, r, c);
  await expect.poll(async () => `${await tip.getAttribute('data-row')},${await tip.getAttribute('data-col')}`).toBe(`${r},${c}`);
  return Number(await tip.getAttribute('data-value'));
}

/** A picture of the "Analyses" card alone (full page from the top, so the sticky stepper stays out of it). */
async function shootAnalyses(page, name) {
  await page.mouse.move(0, 0);
  await page.evaluate(() => window.scrollTo(0, 0));
  const clip = await page.locator('#analyses').boundingBox();
  await page.screenshot({ path: join(root, `tests/artifacts/${name}.png`), fullPage: true, clip });
}

/** How many pixels of a canvas are not white / transparent. */
const inked = (canvas) => canvas.evaluate((c) => {
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 245 || d[i + 1] < 245 || d[i + 2] < 245)) n++;
  return n;
});

describe('the analyses', () => {
  it('generates the toy dev set from the grammar, and the engine translates every pair as its reference', () => {
    const pairs = toyDevSet();
    expect(pairs).toHaveLength(36);
    expect(pairs).toContainEqual(['i can eat apple', 'ich konnen apfel essen']);
    expect(pairs).toContainEqual(['we drink beer', 'wir trinken bier']);
    expect(pairs).toContainEqual(['we want to read newspaper', 'wir mochten zeitung lesen']);
    for (const [src, ref] of pairs) {
      const s = model.translate(src, { capture: { attention: false, logits: false } });
      s.run();
      expect(s.translation, src).toBe(ref);
      s.dispose();
    }
  });

  it('shows ‖α·f(x)‖, the rollout, pattern badges, the vectors, head importance and the timeline as the engine computes them', async () => {
    const page = await env.browser.newPage({ viewport: { width: 1280, height: 1000 }, serviceWorkers: 'block' });
    const errors = watchErrors(page);
    await page.goto(env.url(`/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 'end', vnorm: true })}`));
    await idle(page);
    expect(await page.textContent('#translation')).toBe(session.translation);

    // ‖α·f(x)‖ on the cross-attention map: the engine's value (Node, capture.vectors) on hover.
    expect(await page.inputValue('#vnorm')).toBe('1');
    expect(await page.evaluate(() => window.attnscope.snapshot.vectors)).toBe(true);
    const main = page.locator('#heatmap');
    for (const [r, c] of [[2, 2], [0, 0]]) {
      const want = session.valueWeightedAttention('cross', r, { layer: 0, head: 0 }).data[c];
      expect(await cellValue(page, main, r, c)).toBe(want);
    }
    expect(session.valueWeightedAttention('cross', 0, { layer: 0, head: 0 }).data[0]).toBeGreaterThan(1); // not weights
    await screenshot(page, 'analyses-vnorm', { fullPage: false });
    // Back to raw attention: the captured weights again.
    await page.selectOption('#vnorm', '0');
    expect(await cellValue(page, main, 2, 2)).toBe(session.crossAttention(2, { layer: 0, head: 0 }).data[2]);
    expect(new URL(page.url()).searchParams.get('vnorm')).toBeNull();

    // Rollout (the default analysis).
    const rollout = session.rollout();
    const S = rollout.shape[0];
    const rmap = page.locator('#rollout-map');
    for (const [r, c] of [[0, 4], [1, 1]]) expect(await cellValue(page, rmap, r, c)).toBe(rollout.data[r * S + c]);

    await shootAnalyses(page, 'analyses-rollout');

    // Pattern badges on the encoder heads of the model view, with the rule text.
    await page.click('#tab-model');
    await page.selectOption('#kind', 'encoder');
    const badges = page.locator('.model-grid .thumb .pattern');
    expect(await badges.allTextContents()).toEqual(session.encoderPatterns());
    expect(await badges.first().getAttribute('title')).toContain('band(1) ≥ 0.5');
    expect(await page.textContent('#pattern-help')).toContain('first match wins');
    await page.mouse.move(0, 0);
    await page.locator('#attention').screenshot({ path: join(root, 'tests/artifacts/analyses-patterns.png') });

    // Head importance on the generated toy dev set.
    await page.click('#an-tab-importance');
    expect(new URL(page.url()).searchParams.get('an')).toBe('importance');
    expect(await page.textContent('#hi-count')).toBe('36 pairs');
    await page.click('#hi-run');
    await page.waitForSelector('#an-importance[data-state=done]', { timeout: 30_000 });
    const bar = page.locator('#hi-progress');
    expect(await bar.evaluate((b) => [b.value, b.max])).toEqual([3, 3]);
    const sweep = model.headImportance(toyDevSet());
    const crossHead = sweep.heads.find((h) => h.site === 'cross');
    const shown = await cellValue(page, page.locator('#hi-cross'), 0, 0);
    expect(Math.abs(shown - crossHead.deltaLogLikelihood)).toBeLessThan(1e-4);
    expect(Number(await page.getAttribute('#hi-most li:first-child', 'data-value'))).toBeCloseTo(Math.min(...sweep.heads.map((h) => h.deltaLogLikelihood)), 4);
    expect(await page.locator('#hi-most li').count()).toBe(3);
    expect(await page.locator('#hi-least li').count()).toBe(3);
    // Without BLEU, the Δ BLEU colouring is not offered.
    expect(await page.locator('#hi-metric option[value=bleu]').isDisabled()).toBe(true);
    // The toy model ships no precomputed sweep.
    expect(await page.isHidden('#hi-precomputed')).toBe(true);

    // Again with Δ BLEU: one greedy decode per sentence and head, in the worker.
    await page.check('#hi-bleu');
    await page.click('#hi-run');
    // (The pane says 'done' from the first run already: wait for the new result itself.)
    await page.waitForFunction(() => document.querySelector('#hi-results .caption')?.textContent.includes('BLEU'), null, { timeout: 60_000 });
    expect(await page.getAttribute('#an-importance', 'data-state')).toBe('done');
    const withBleu = model.headImportance(toyDevSet(), { bleu: true });
    expect(await page.textContent('#hi-results .caption')).toContain(`BLEU ${withBleu.baseBleu.toFixed(2)}`);
    expect(await page.locator('#hi-metric option[value=bleu]').isDisabled()).toBe(false);
    await page.selectOption('#hi-metric', 'bleu');
    expect(await page.getAttribute('#hi-results', 'data-metric')).toBe('bleu');
    const bleuOf = (site) => withBleu.heads.find((h) => h.site === site).deltaBleu;
    for (const site of ['encoder', 'self', 'cross']) {
      const shownBleu = await cellValue(page, page.locator(`#hi-${site}`), 0, 0);
      expect(Math.abs(shownBleu - bleuOf(site)), site).toBeLessThan(1e-6);
    }
    expect(await page.locator('#hi-cross .hm-tip b').textContent()).toBe('Cross-attention, layer 1, head 1 masked: Δ BLEU (corpus, 13a)');
    expect(bleuOf('cross')).toBeLessThan(0); // masking the only cross head costs BLEU on the toy grammar
    const byBleu = [...withBleu.heads].sort((x, y) => x.deltaBleu - y.deltaBleu);
    expect(await page.locator('#hi-most li').evaluateAll((li) => li.map((x) => Number(x.dataset.value))))
      .toEqual(byBleu.map((h) => h.deltaBleu));
    expect(await page.textContent('#hi-most li:first-child')).toMatch(/Δ log-likelihood/); // the other metric beside
    // And back: Δ log-likelihood.
    await page.selectOption('#hi-metric', 'll');
    const llShown = await cellValue(page, page.locator('#hi-cross'), 0, 0);
    expect(Math.abs(llShown - withBleu.heads.find((h) => h.site === 'cross').deltaLogLikelihood)).toBeLessThan(1e-4);
    await page.selectOption('#hi-metric', 'bleu');
    await shootAnalyses(page, 'analyses-importance');

    // Vectors: PCA points, the positional encoding, the cosine map and the Q·Kᵀ row.
    await page.click('#an-tab-vectors');
    await page.waitForSelector('#an-vectors[data-ready=true]', { timeout: 30_000 });
    await idle(page);
    expect(await page.evaluate(() => window.attnscope.snapshot.vectors)).toBe(true);
    const svgs = page.locator('#pca-body svg');
    expect(await svgs.evaluateAll((s) => s.map((x) => [Number(x.dataset.points), x.querySelectorAll('circle').length])))
      .toEqual([[model.vocab('source').length, model.vocab('source').length], [model.vocab('target').length, model.vocab('target').length]]);
    const pe = model.positionalEncoding();
    const pos = page.locator('#positional-map canvas');
    expect(JSON.parse(await pos.getAttribute('data-grid'))).toMatchObject({ rows: pe.shape[0], cols: pe.shape[1] });
    expect(await inked(pos)).toBeGreaterThan(1000);
    expect(await cellValue(page, page.locator('#positional-map'), 3, 5)).toBe(pe.data[3 * pe.shape[1] + 5]);
    const ids = session.nbest()[0].ids;
    const cos = model.embeddingCosine(session.source.ids, ids);
    expect(await cellValue(page, page.locator('#cosine-map'), 1, 2)).toBe(cos.data[1 * ids.length + 2]);
    // Encoder query "can": before softmax = attentionLogits, after = the captured row.
    await page.selectOption('#fq-query', '1');
    const before = session.attentionLogits('encoder', { layer: 0, head: 0, query: 1 });
    await expect.poll(() => page.locator('#factor-before .fbar').evaluateAll((b) => b.map((x) => Number(x.dataset.value)))).toEqual(Array.from(before));
    const after = session.encoderAttention({ layer: 0, head: 0 }).data.slice(S, 2 * S);
    expect(await page.locator('#factor-after .fbar').evaluateAll((b) => b.map((x) => Number(x.dataset.value)))).toEqual(Array.from(after));
    // Cross-attention: the current (last) step.
    await page.selectOption('#fq-kind', 'cross');
    const last = session.steps - 1;
    const crossLogits = session.attentionLogits('cross', { layer: 0, head: 0, step: last });
    await expect.poll(() => page.locator('#factor-before .fbar').evaluateAll((b) => b.map((x) => Number(x.dataset.value)))).toEqual(Array.from(crossLogits));
    await shootAnalyses(page, 'analyses-vectors');

    // Training timeline: epoch 0 against the trained model.
    await page.click('#an-tab-timeline');
    await page.waitForSelector('#an-timeline[data-ready=true][data-model=toy-en-de]', { timeout: 30_000 });
    const setSlider = (v) => page.$eval('#tl-slider', (el, x) => { el.value = x; el.dispatchEvent(new Event('input', { bubbles: true })); }, String(v));
    await setSlider(0);
    await page.waitForSelector('#an-timeline[data-ready=true][data-model=toy-en-de-epoch000]', { timeout: 30_000 });
    expect(new URL(page.url()).searchParams.get('epoch')).toBe('0');
    const early = await loadModel(join(root, 'models/snapshots/toy-en-de.epoch000.safetensors'));
    const es = early.translate(SENTENCE);
    es.run();
    const tokens = es.nbest()[0].tokens;
    expect(await page.getAttribute('#tl-output', 'data-tokens')).toBe(tokens.join(' '));
    const earlyRow = Array.from(es.crossAttention(0, { layer: 0, head: 0 }).data);
    expect(await cellValue(page, page.locator('#timeline-map'), 0, 1)).toBe(earlyRow[1]);
    const finalRow = Array.from(session.crossAttention(0, { layer: 0, head: 0 }).data);
    expect(tokens[0] !== session.nbest()[0].tokens[0] || earlyRow.some((v, i) => Math.abs(v - finalRow[i]) > 0.05)).toBe(true);
    es.dispose();
    early.dispose();
    await shootAnalyses(page, 'analyses-timeline');
    await setSlider(6);
    await page.waitForSelector('#an-timeline[data-ready=true][data-model=toy-en-de]', { timeout: 30_000 });
    expect(await page.getAttribute('#tl-output', 'data-tokens')).toBe(session.nbest()[0].tokens.join(' '));

    await page.mouse.move(0, 0);
    await screenshot(page, 'analyses-page');
    expect(errors).toEqual([]);
    await page.close();
  });
});
