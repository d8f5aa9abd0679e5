// What looks broken is explained: a translation that ends at once or runs to the length limit is
// said in words; subword pieces show as whole words (a switch shows the pieces, with a hint that
// ▁ starts a word); while another model loads, the old model's views are greyed out.
import { expect, it } from 'vitest';
import { findModel } from '../../web/models.js';
import { idle, openPage, screenshot } from './browser.js';
import { browserWithModel } from './with-model.js';

const EXAMPLE = findModel('multi30k-en-de').example;
const t = browserWithModel('models/multi30k-en-de.safetensors');

const labels = (page, sel) => page.evaluate(`import('/web/app/views/heatmap.js').then((m) => { const s = m.heatmapOf(document.querySelector(${JSON.stringify(sel)})).spec; return [s.rowLabels, s.colLabels]; })`);

// Breakages that make a model end at once depend on the weights: the first of these that makes
// the shipped en-de end at once on its example is the one shown (the engine says which, below).
const ENDS_AT_ONCE = [['layerNorm'], ['decoderSelfAttention', 'layerNorm'], ['crossAttention', 'layerNorm']];

it('says in words what a broken model did: ended at once, or ran to the length limit', async () => {
  const skip = ENDS_AT_ONCE.find((sk) => {
    const s = t.model.translate(EXAMPLE, { interventions: { skip: sk } });
    s.run();
    const atOnce = s.steps === 1 && s.translation === '';
    s.dispose();
    return atOnce;
  });
  expect(skip, `none of ${JSON.stringify(ENDS_AT_ONCE)} makes the shipped en-de end at once on “${EXAMPLE}”: add one that does`).toBeDefined();
  const { page, errors } = await openPage(t.env, `/web/index.html?model=multi30k-en-de&step=end&${skip.map((k) => `skip=${k}`).join('&')}`);
  expect(await page.textContent('#translation')).toBe('');
  expect(await page.textContent('#outcome-note')).toBe('The model ended at once: the first token it chose was “</s>” (end of sentence), so the translation is empty.');

  const only = t.model.translate(EXAMPLE, { interventions: { skip: ['encoderSelfAttention', 'decoderSelfAttention', 'crossAttention', 'ffn'] } });
  only.run();
  const st = only.state();
  expect(st.hitMaxLength).toBe(true);
  const tokens = only.nbest()[0].tokens;
  const top = tokens.filter((t) => t === tokens[0]).length;
  await page.locator('#break').evaluate((d) => { d.open = true; });
  await page.click('[data-preset=layernorm-only]');
  await idle(page);
  const shown = tokens[0].startsWith('▁') ? tokens[0].slice(1) : /^<.*>$/.test(tokens[0]) ? tokens[0] : `·${tokens[0]}`; // as the page names one token
  expect(await page.textContent('#outcome-note')).toBe(`The model never wrote “</s>” (end of sentence): it stopped at the length limit of ${tokens.length} tokens, having written “${shown}” ${top} times.`
    + (only.translation.trim() ? '' : ' Those are special tokens, not words, so the translation is empty.'));
  await page.locator('#output-panel').scrollIntoViewIfNeeded();
  await screenshot(page, 'explain-length-limit', { fullPage: false });
  only.dispose();
  // The trained model: nothing to explain.
  await page.click('#reset-interventions');
  await idle(page);
  expect(await page.isHidden('#outcome-note')).toBe(true);
  expect(errors).toEqual([]);
  await page.close();
});

it('shows whole words by default, subword pieces on request, and says that ▁ starts a word', async () => {
  const { page, errors } = await openPage(t.env, '/web/index.html?model=multi30k-en-de&step=4');
  const pieces = await page.evaluate(() => window.attnscope.snapshot.source.pieces);
  expect(pieces.slice(0, -1)).toEqual(t.model.tokenize(EXAMPLE).pieces);
  expect(pieces.some((p) => p.startsWith('▁'))).toBe(true);
  expect(await page.isVisible('#pieces-line')).toBe(true);
  expect(await page.textContent('#pieces-line')).toContain('▁ starts a word');
  // Whole words: the sentence as written (and </s>); the marker is not shown.
  expect(await page.locator('#source-tokens .tok').allTextContents()).toEqual([...EXAMPLE.split(' '), '</s>']);
  expect(await page.locator('#source-tokens').innerText()).not.toContain('▁');
  const [rows, cols] = await labels(page, '#heatmap canvas');
  expect(rows.join(' ')).not.toContain('▁');
  expect(rows[0]).toMatch(/^1\) \S/);
  expect(cols).toEqual(pieces.map((p) => (p.startsWith('▁') ? p.slice(1) : /^<.*>$/.test(p) ? p : `·${p}`)));
  await screenshot(page, 'explain-words', { fullPage: false });
  await page.check('#pieces');
  expect(await page.locator('#source-tokens .tok').allTextContents()).toEqual(pieces);
  expect(await page.locator('#source-tokens').innerText()).toContain('▁');
  expect((await labels(page, '#heatmap canvas'))[1]).toEqual(pieces);
  // A word-level model has nothing to explain.
  await page.selectOption('#model', 'toy-en-de');
  await idle(page);
  expect(await page.isHidden('#pieces-line')).toBe(true);
  expect(errors).toEqual([]);
  await page.close();
});

it('greys out the old model\'s views and hides its word hints while another model loads', async () => {
  const { page, errors } = await openPage(t.env, '/web/index.html?step=3');
  expect(await page.isVisible('#vocab-hint')).toBe(true);
  let release;
  const held = new Promise((ok) => { release = ok; });
  await page.route('**/models/multi30k-en-de.safetensors', async (route) => { await held; await route.continue(); });
  await page.selectOption('#model', 'multi30k-en-de');
  await expect.poll(() => page.evaluate(() => document.querySelector('#app').classList.contains('stale'))).toBe(true);
  expect(await page.isHidden('#vocab-hint')).toBe(true);
  await expect.poll(async () => Number(await page.locator('.layout').evaluate((e) => getComputedStyle(e).opacity))).toBeLessThan(0.5);
  await screenshot(page, 'explain-stale-while-loading', { fullPage: false });
  release();
  await idle(page);
  await expect.poll(() => page.evaluate(() => document.querySelector('#app').classList.contains('stale'))).toBe(false);
  expect(await page.locator('#model').inputValue()).toBe('multi30k-en-de');
  await expect.poll(async () => Number(await page.locator('.layout').evaluate((e) => getComputedStyle(e).opacity))).toBe(1);
  expect(errors).toEqual([]);
  await page.close();
});
