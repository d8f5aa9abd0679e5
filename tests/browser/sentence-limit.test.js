// The sentence box takes what the engine takes: no cut at a number of characters. The engine's one
// limit is the model's, in tokens (max_positions, </s> included): the page states it under the box,
// and a longer sentence gets the engine's own message.
import { expect, it } from 'vitest';
import { idle, openPage, shippedConfig } from './browser.js';
import { browserWithModel } from './with-model.js';

const t = browserWithModel('models/multi30k-en-de.safetensors');

it('translates a sentence of more than 500 characters whole, states the token limit, and says when a sentence exceeds it', async () => {
  const max = shippedConfig('multi30k-en-de').max_positions;
  // Long words, few pieces: over 500 characters, under the model's limit.
  const long = Array.from({ length: 40 }, () => 'bicycle playground').join(' ');
  const pieces = t.model.tokenize(long).pieces;
  expect(long.length).toBeGreaterThan(500);
  expect(pieces.length + 1).toBeLessThanOrEqual(max);

  const { page, errors } = await openPage(t.env, '/web/index.html?model=multi30k-en-de');
  expect(await page.textContent('#length-hint')).toBe(`This model reads at most ${max} pieces (</s> included); it refuses a longer sentence.`);
  await page.fill('#sentence', long);
  expect(await page.inputValue('#sentence')).toBe(long);
  await page.click('#translate');
  await idle(page);
  expect(await page.evaluate(() => window.attnscope.snapshot.source.pieces)).toEqual([...pieces, '</s>']);
  expect(await page.evaluate(() => window.attnscope.state.s)).toBe(long);
  expect(await page.isHidden('#error')).toBe(true);

  // Over the limit: the engine refuses, in words.
  const longer = Array.from({ length: max }, () => 'bicycle').join(' ');
  await page.fill('#sentence', longer);
  await page.click('#translate');
  await idle(page);
  expect(await page.isVisible('#error')).toBe(true);
  expect(await page.textContent('#error')).toContain(`this model reads at most ${max}`);
  expect(errors).toEqual([]);
  await page.close();
});
