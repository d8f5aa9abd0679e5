// "Force any token": a type-ahead over the whole target vocabulary forces a token that is not
// among the ten bars, as clicking a bar does; the engine in Node, forced the same way, agrees.
import { expect, it } from 'vitest';
import { matchTokens } from '../../web/app/panels/force-any.js';
import { formatState, parseState } from '../../web/app/state/state.js';
import { idle, openPage, screenshot } from './browser.js';
import { browserWithModel } from './with-model.js';

const SENTENCE = 'i can eat apple';
const t = browserWithModel('models/toy-en-de.safetensors');

const outputs = (page) => page.locator('#lines li .out').allTextContents();

it('forces a token from outside the top 10, found by typing, with the mouse or the keyboard', async () => {
  const { page, errors } = await openPage(t.env, `/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 2 })}`);
  const bars = await page.locator('#bars button.bar').evaluateAll((bs) => bs.map((b) => b.dataset.token));
  expect(bars).toHaveLength(10);
  const vocab = t.model.vocab('target');
  const outside = vocab.filter((t) => !bars.includes(t) && !/^<.*>$/.test(t));
  expect(outside.length).toBeGreaterThan(0);
  const token = outside[0];
  await page.fill('#force-input', token.slice(0, 3));
  const option = page.locator(`#force-list li[data-token="${token}"]`);
  await option.waitFor();
  expect(await page.getAttribute('#force-input', 'aria-expanded')).toBe('true');
  await screenshot(page, 'force-any-list', { fullPage: false });
  await option.click();
  await idle(page);
  expect((await outputs(page))[1]).toBe(token);
  expect(await page.locator('#lines li.current .badge').textContent()).toBe('forced');
  const s = t.model.translate(SENTENCE);
  s.step();
  s.force(token);
  await page.click('#last');
  await idle(page);
  s.run();
  expect(await page.textContent('#translation')).toBe(s.translation);
  expect(new URL(page.url()).searchParams.getAll('force')).toEqual([`1:${token}`]);
  s.dispose();

  // The keyboard: type, ↓ to the second match, Enter.
  await page.click('#first');
  await page.click('#next');
  await idle(page);
  const query = [...'abcdefghijklmnopqrstuvwxyz'].find((q) => matchTokens(vocab, q).length > 1);
  const matches = matchTokens(vocab, query);
  expect(matches.length).toBeGreaterThan(1);
  await page.fill('#force-input', query);
  await page.locator('#force-list li').first().waitFor();
  await page.press('#force-input', 'ArrowDown');
  expect(await page.getAttribute('#force-input', 'aria-activedescendant')).toBe('force-opt-1');
  await page.press('#force-input', 'Enter');
  await idle(page);
  expect((await outputs(page))[0]).toBe(vocab[matches[1]]);
  expect(errors).toEqual([]);
  await page.close();
});

it('matches prefixes first (ignoring ▁), then other occurrences', () => {
  const vocab = ['<s>', '▁Fahrrad', 'fahr', '▁Mann', 'Gefahr', '▁fahren'];
  expect(matchTokens(vocab, 'fahr').map((i) => vocab[i])).toEqual(['fahr', '▁fahren', '▁Fahrrad', 'Gefahr']);
  expect(matchTokens(vocab, '▁mann').map((i) => vocab[i])).toEqual(['▁Mann']);
  expect(matchTokens(vocab, '  ')).toEqual([]);
});
