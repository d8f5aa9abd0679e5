// The names of models trained in the page (web/app/state/trained.js), the URL state that carries them
// (web/app/state/state.js) and the Training panel's check of the pairs it is given (web/app/panels/training.js).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { trainingPresets } from '../../web/attnscope.js';
import { findModel, knownTrainingPresets, modelUrl, noteTrainingPresets } from '../../web/models.js';
import { formatState, parseState } from '../../web/app/state/state.js';
import { normalizePairs, pairsHash, parseTrainedId, trainedId, trainerOptions } from '../../web/app/state/trained.js';
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

// The architectures the Training panel offers are the presets each model family registers in the
// engine (src/model/registry.h TrainingPreset), handed to JS by web/attnscope.js trainingPresets.
describe('the engine\'s training presets', () => {
  let all; // every preset
  let presets; // the Training panel's: those that train on pairs
  beforeAll(async () => {
    all = await trainingPresets();
    presets = all.filter((p) => p.task === 'pairs');
  });
  afterEach(() => noteTrainingPresets(null));

  it('come from the engine, each family\'s, the default family\'s first first', () => {
    expect(all.map(({ id, label, family, heads, width, widthLabel, proposedLr, task }) => ({ id, label, family, heads, width, widthLabel, proposedLr, task }))).toEqual([
      { id: 'transformer', label: 'Transformer', family: 'transformer', heads: true, width: 'dModel', widthLabel: 'd_model', proposedLr: 0.001, task: 'pairs' },
      { id: 'rnn-bahdanau', label: 'RNN, Bahdanau attention', family: 'rnn', heads: false, width: 'dHidden', widthLabel: 'hidden size', proposedLr: 0.003, task: 'pairs' },
      { id: 'rnn-luong', label: 'RNN, Luong attention', family: 'rnn', heads: false, width: 'dHidden', widthLabel: 'hidden size', proposedLr: 0.003, task: 'pairs' },
      { id: 'rnn-none', label: 'RNN, no attention', family: 'rnn', heads: false, width: 'dHidden', widthLabel: 'hidden size', proposedLr: 0.003, task: 'pairs' },
      { id: 'attention-only', label: 'Attention-only transformer, 2 layers', family: 'decoder_only', heads: true, width: 'dModel', widthLabel: 'd_model', proposedLr: 0.003, task: 'induction' },
    ]);
    // The induction preset's size is its own: the 2-layer attention-only model of Olsson et al.
    expect(all[4].options).toEqual({ family: 'decoder_only', layers: 2, heads: 4, dModel: 64, dFf: 0 });
    expect(Object.isFrozen(presets[1].options)).toBe(true);
  });

  // The trainer options a link's model trained with before the presets came from the engine
  // (web/app/state/trained.js's table of architectures then), written out here.
  it('read the links made before them as the same recipes and trainer options', () => {
    const transformer = parseTrainedId('trained:e8.s1.l1.h1.d64.lr0.001', presets);
    expect(transformer).toEqual({ epochs: 8, seed: 1, layers: 1, heads: 1, dModel: 64, lr: 0.001, hash: null });
    expect(trainerOptions(transformer, presets)).toEqual({ layers: 1, heads: 1, dModel: 64, seed: 1, lr: 0.001 });
    expect(trainedId(transformer)).toBe('trained:e8.s1.l1.h1.d64.lr0.001');

    const bahdanau = parseTrainedId('trained:e30.s1.l1.h1.d64.lr0.003.rnn-bahdanau', presets);
    expect(bahdanau).toEqual({ epochs: 30, seed: 1, layers: 1, heads: 1, dModel: 64, lr: 0.003, arch: 'rnn-bahdanau', hash: null });
    expect(trainerOptions(bahdanau, presets)).toEqual({
      family: 'rnn', cell: 'gru', attention: 'bahdanau', score: 'additive', layers: 1, dHidden: 64, bidirectional: true, clipNorm: 1, seed: 1, lr: 0.003,
    });
    expect(trainedId(bahdanau)).toBe('trained:e30.s1.l1.h1.d64.lr0.003.rnn-bahdanau');

    const luong = parseTrainedId('trained:e12.s7.l2.h1.d32.lr0.003.rnn-luong.p0123abcd', presets);
    expect(luong).toEqual({ epochs: 12, seed: 7, layers: 2, heads: 1, dModel: 32, lr: 0.003, arch: 'rnn-luong', hash: '0123abcd' });
    expect(trainerOptions(luong, presets)).toEqual({
      family: 'rnn', cell: 'gru', attention: 'luong', score: 'dot', layers: 2, dHidden: 32, bidirectional: true, clipNorm: 1, seed: 7, lr: 0.003,
    });
    const none = parseTrainedId('trained:e5.s2.l1.h1.d16.lr0.01.rnn-none', presets);
    expect(trainerOptions(none, presets)).toEqual({
      family: 'rnn', cell: 'gru', attention: 'none', score: 'none', layers: 1, dHidden: 16, bidirectional: true, clipNorm: 1, seed: 2, lr: 0.01,
    });
    const heads = parseTrainedId('trained:e3.s1.l2.h4.d64.lr0.001.p0123abcd', presets);
    expect(heads).toEqual({ epochs: 3, seed: 1, layers: 2, heads: 4, dModel: 64, lr: 0.001, hash: '0123abcd' });
    expect(trainerOptions(heads, presets)).toEqual({ layers: 2, heads: 4, dModel: 64, seed: 1, lr: 0.001 });
  });

  it('refuse a name of a preset the engine has not (or of the first, which is never named)', () => {
    for (const bad of ['trained:e8.s1.l1.h1.d64.lr0.001.rnn-elman', 'trained:e8.s1.l1.h1.d64.lr0.001.transformer',
      'trained:e8.s1.l1.h1.d64.lr0.001.gru', 'trained:e8.s1.l1.h1.d64.lr0.001.rnn-bahdanau.rnn-luong']) {
      expect(parseTrainedId(bad, presets), bad).toBeNull();
      expect(findModel(bad), bad).toBeUndefined();
    }
    expect(() => trainerOptions({ arch: 'rnn-elman', layers: 1, heads: 1, dModel: 64, seed: 1, lr: 0.001 }, presets)).toThrow(/unknown architecture 'rnn-elman'/);
    // Without the engine's list, only the first preset's names are models.
    expect(parseTrainedId('trained:e30.s1.l1.h1.d64.lr0.003.rnn-bahdanau')).toBeNull();
    expect(parseTrainedId('trained:e30.s1.l1.h1.d64.lr0.003')).not.toBeNull();
    // A hash is never read as a preset.
    expect(parseTrainedId('trained:e8.s1.l1.h1.d64.lr0.001.p0123abcd', presets).hash).toBe('0123abcd');
  });

  it('are the page\'s once it has them: a link naming one is a model, one naming another is not', () => {
    const id = 'trained:e30.s1.l1.h1.d64.lr0.003.rnn-bahdanau';
    expect(findModel(id)).toBeUndefined();
    expect(parseState(`?model=${id}`).model).toBe('toy-en-de');
    noteTrainingPresets(presets);
    expect(knownTrainingPresets()).toBe(presets);
    expect(findModel(id)).toMatchObject({ trained: true, label: 'Trained here · RNN, Bahdanau attention · toy grammar, 1 layer, d 64, 30 epochs, seed 1' });
    expect(parseState(`?model=${id}`)).toMatchObject({ model: id, pairs: null });
    const pairs = 'i eat,ich esse';
    const custom = trainedId({ epochs: 3, seed: 1, layers: 1, heads: 1, dModel: 64, lr: 0.003, arch: 'rnn-luong' }, pairs);
    const st = parseState(`?${new URLSearchParams({ model: custom, pairs })}`);
    expect(st).toMatchObject({ model: custom, pairs });
    expect(new URLSearchParams(formatState(st)).get('pairs')).toBe(pairs);
    expect(parseState('?model=trained:e30.s1.l1.h1.d64.lr0.003.rnn-elman').model).toBe('toy-en-de');
  });
});
