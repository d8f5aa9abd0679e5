// The head-importance sweep in parts (web/app/worker/sweep-pool.js): how the pool cuts the
// heads, and Model.headImportance({heads: {first, count}}) in Node: the parts put end to end are
// the whole sweep, number for number (the browser test tests/browser/sweep-pool.test.js runs the
// pool of workers itself against the page's one-worker sweep).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { splitHeads } from '../../web/app/worker/sweep-pool.js';
import { toyDevSet } from '../../web/app/panels/importance-tab.js';
import { FROZEN_TOY } from './helpers.js';

let toy;
beforeAll(async () => { toy = await loadModel(FROZEN_TOY); });
afterAll(() => toy?.dispose());

it('cuts the heads into contiguous ranges, as even as they go, never more ranges than heads', () => {
  expect(splitHeads(72, 4)).toEqual([{ first: 0, count: 18 }, { first: 18, count: 18 }, { first: 36, count: 18 }, { first: 54, count: 18 }]);
  expect(splitHeads(7, 3)).toEqual([{ first: 0, count: 3 }, { first: 3, count: 2 }, { first: 5, count: 2 }]);
  expect(splitHeads(3, 4)).toEqual([{ first: 0, count: 1 }, { first: 1, count: 1 }, { first: 2, count: 1 }]);
  expect(splitHeads(5, 1)).toEqual([{ first: 0, count: 5 }]);
});

it('a range of heads has the whole sweep\'s baseline and its numbers for those heads, exactly', () => {
  const pairs = toyDevSet().slice(0, 12);
  const whole = toy.headImportance(pairs, { bleu: true });
  expect(whole.heads.map((h) => h.site)).toEqual(['encoder', 'self', 'cross']);
  const progress = [];
  const parts = splitHeads(3, 2).map((heads) => toy.headImportance(pairs, { bleu: true, heads, onProgress: (d, t) => progress.push([d, t]) }));
  expect(progress).toEqual([[0, 2], [1, 2], [2, 2], [0, 1], [1, 1]]);
  for (const p of parts) {
    expect([p.baseLogLikelihood, p.baseBleu, p.tokens]).toEqual([whole.baseLogLikelihood, whole.baseBleu, whole.tokens]);
  }
  expect(parts.flatMap((p) => p.heads)).toEqual(whole.heads);
  // count -1 (the default): from `first` to the last head.
  const tail = toy.headImportance(pairs, { heads: { first: 2 } });
  expect(tail.heads.map((h) => [h.site, h.deltaLogLikelihood])).toEqual([['cross', whole.heads[2].deltaLogLikelihood]]);
});

it('a range outside the model\'s heads, or not a whole number, is an error that says so', () => {
  const pairs = toyDevSet().slice(0, 2);
  expect(() => toy.headImportance(pairs, { heads: { first: 2, count: 2 } })).toThrow(/head range \[2, 4\) is outside this model's 3 heads/);
  expect(() => toy.headImportance(pairs, { heads: { first: -1, count: 1 } })).toThrow(/outside this model's 3 heads/);
  expect(() => toy.headImportance(pairs, { heads: { first: 0.5 } })).toThrow(/heads.first must be an integer/);
  expect(() => toy.headImportance(pairs, { heads: { count: 'x' } })).toThrow(/heads.count must be an integer/);
});
