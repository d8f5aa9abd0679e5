// The names of models trained in the page (web/app/state/trained.js), the URL state that carries them
// (web/app/state/state.js) and the Training panel's check of the pairs it is given (web/app/panels/training.js).
import { describe, expect, it } from 'vitest';
import { findModel, modelUrl } from '../../web/models.js';
import { formatState, parseState } from '../../web/app/state/state.js';
import { normalizePairs, pairsHash, parseTrainedId, trainedId } from '../../web/app/state/trained.js';
import { pairProblems } from '../../web/app/panels/training.js';

const recipe = { epochs: 8, seed: 1, layers: 1, heads: 1, dModel: 64, lr: 0.001 };

describe('trained model names', () => {
  it('write and read a recipe; other pairs add their hash', () => {
    expect(trainedId(recipe)).toBe('trained:e8.s1.l1.h1.d64.lr0.001');
    expect(parseTrainedId('trained:e8.s1.l1.h1.d64.lr0.001')).toEqual({ ...recipe, hash: null });
    const pairs = normalizePairs(' a b,c d \r\n\n e,f\n');
    expect(pairs).toBe('a b,c d\ne,f');
    const id = trainedId(recipe, pairs);
    expect(id).toBe(`trained:e8.s1.l1.h1.d64.lr0.001.p${pairsHash(pairs)}`);
    expect(parseTrainedId(id).hash).toMatch(/^[0-9a-f]{8}$/);
    expect(pairsHash('a,b')).not.toBe(pairsHash('a,c'));
    // FNV-1a 32 of "a": 0xe40c292c (the published test vector).
    expect(pairsHash('a')).toBe('e40c292c');
  });

  it('refuse what is not a recipe', () => {
    for (const bad of ['toy-en-de', 'trained:', 'trained:e8.s1.l1.h1.d64', 'trained:e8.s1.l1.h1.d64.lr0', 'trained:e8.s1.l1.h1.d64.lr2',
      'trained:e8.s1.l1.h1.d64.lr0.001.pXYZ', 'trained:e8.s1.l10.h1.d64.lr0.001', null, 42]) {
      expect(parseTrainedId(bad), String(bad)).toBeNull();
    }
  });

  it('are manifest-like entries whose URL in the worker is the name', () => {
    const entry = findModel('trained:e8.s1.l1.h1.d64.lr0.001');
    expect(entry).toMatchObject({ trained: true, example: null });
    expect(entry.label).toBe('Trained here · toy grammar, 1 layer, 1 head, d 64, 8 epochs, seed 1');
    expect(modelUrl(entry)).toBe('trained:e8.s1.l1.h1.d64.lr0.001');
  });
});

describe('the URL state of a trained model', () => {
  it('keeps the toy grammar\'s model without pairs, and round-trips edited pairs', () => {
    const toy = parseState('?model=trained:e8.s1.l1.h1.d64.lr0.001');
    expect(toy).toMatchObject({ model: 'trained:e8.s1.l1.h1.d64.lr0.001', pairs: null, s: 'i can eat apple' });
    expect(new URLSearchParams(formatState(toy)).get('pairs')).toBeNull();
    const pairs = 'i eat,ich esse\nyou eat,du isst';
    const id = trainedId(recipe, pairs);
    const st = parseState(`?${new URLSearchParams({ model: id, pairs, s: 'i eat' })}`);
    expect(st).toMatchObject({ model: id, pairs, s: 'i eat' });
    expect(parseState(formatState(st))).toEqual(st);
  });

  it('falls back to the default model when the pairs are missing or not the hashed ones', () => {
    const id = trainedId(recipe, 'i eat,ich esse');
    expect(parseState(`?model=${id}`).model).toBe('toy-en-de');
    expect(parseState(`?${new URLSearchParams({ model: id, pairs: 'i eat,ich iss' })}`)).toMatchObject({ model: 'toy-en-de', pairs: null });
  });
});

describe('the Training panel\'s check of the pairs', () => {
  it('names every bad line and counts the good ones', () => {
    expect(pairProblems('a,b\r\n\nc,d\n')).toEqual({ problems: [], count: 2 });
    expect(pairProblems('a b\nx,y,z\n,b\na,\n').problems).toEqual([
      'line 1: “a b” needs exactly one comma between source and target (it has 0)',
      'line 2: “x,y,z” needs exactly one comma between source and target (it has 2)',
      'line 3: “,b” has an empty source',
      'line 4: “a,” has an empty target',
    ]);
    expect(pairProblems('  \n').problems).toEqual(['no sentence pairs: write one “source,target” per line']);
    expect(pairProblems(`${'x'.repeat(501)},y`).problems).toEqual(['line 1: a side is longer than 500 characters']);
  });
});
