// The induction-heads preset's engine calls through the WASM build: Model#inductionScores on the
// decoder-only goldens' models against the PyTorch reference and numpy
// (tests/golden/induction/scores.json, models/goldens/make_induction_goldens.py), the seeded
// corpora (repeatedSequences, successorWalks), and a trainer's corpus replaced between epochs
// (Trainer#setPairs). Bad input is an AttnscopeError naming what is wrong.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttnscopeError, createTrainer, loadModel, repeatedSequences, successorWalks } from '../../web/attnscope.js';
import { path } from './helpers.js';

const golden = JSON.parse(readFileSync(path('tests/golden/induction/scores.json'), 'utf8'));
const close = (values) => values.map((x) => expect.closeTo(x, 4)); // a NaN is close to nothing

describe('model.inductionScores(probes, symbols)', () => {
  for (const [name, want] of Object.entries(golden.models)) {
    describe(name, () => {
      let model;
      beforeAll(async () => { model = await loadModel(path(`tests/golden/decoder_only/${name}.safetensors`)); });
      afterAll(() => model?.dispose());

      it('matches the reference on the probes', () => {
        const vocab = model.vocab('target');
        const probes = golden.probes.map((ids) => ids.map((id) => vocab[id]).join(' '));
        const s = model.inductionScores(probes, golden.tokens.map((id) => vocab[id]));
        expect([s.layers, s.heads]).toEqual([want.prefix_matching.length, want.prefix_matching[0].length]);
        expect(s.prefixMatching.flat()).toEqual(close(want.prefix_matching.flat()));
        expect(s.previousToken.flat()).toEqual(close(want.previous_token.flat()));
        expect(s.copying.flat()).toEqual(close(want.copying.flat()));
        expect([s.lossFirstHalf, s.lossRepeatedHalf]).toEqual(close([want.loss_first_half, want.loss_repeated_half]));
        expect(s.attention.shape).toEqual([s.layers, s.heads, 1 + golden.probes[0].length, 1 + golden.probes[0].length]);
        expect(Array.from(s.attention.data)).toEqual(close(want.attention.flat(3)));
        expect(s.tokens).toEqual(['<s>', ...golden.probes[0].map((id) => vocab[id])]);
      });
    });
  }

  it('refuses probes that are not repeats, unknown words, and models that read no prompt', async () => {
    const model = await loadModel(path('tests/golden/decoder_only/attention_only_gelu.safetensors'));
    try {
      expect(() => model.inductionScores(['apple beer apple bread'], ['apple'])).toThrow(/token 4 does not repeat token 2/);
      expect(() => model.inductionScores(['apple zebra apple zebra'], ['apple'])).toThrow(/induction probe 1: 'zebra' is not in the model's vocabulary/);
      expect(() => model.inductionScores(['apple apple'], ['i want'])).toThrow(/is not one token/);
      expect(() => model.inductionScores('apple apple', ['apple'])).toThrow(AttnscopeError);
    } finally {
      model.dispose();
    }
    const translation = await loadModel(path('tests/models/toy-en-de.frozen.safetensors'));
    try {
      const word = translation.vocab('target')[5];
      expect(() => translation.inductionScores([`${word} ${word}`], [word])).toThrow(/need a language model/);
    } finally {
      translation.dispose();
    }
  });
});

describe('repeatedSequences(options)', () => {
  it('makes each pair one half twice, from a seed, and fixed probes', async () => {
    const a = await repeatedSequences({ halfLength: 6, minHalfLength: 2, symbols: 8, sequences: 50, seed: 3, probes: 2 });
    expect(a.symbols).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7']);
    expect(a.pairs.length).toBe(50);
    const lengths = new Set();
    for (const [source, target] of a.pairs) {
      expect(target).toBe(source);
      const words = source.split(' ');
      lengths.add(words.length);
      for (const w of words) expect(a.symbols).toContain(w);
    }
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(6);
    expect(lengths.size).toBeGreaterThan(1);
    expect(a.probes.length).toBe(2);
    for (const probe of a.probes) {
      const words = probe.split(' ');
      expect(words.length).toBe(12);
      expect(new Set(words.slice(0, 6)).size).toBe(6);
      expect(words.slice(6)).toEqual(words.slice(0, 6));
    }
    const again = await repeatedSequences({ halfLength: 6, minHalfLength: 2, symbols: 8, sequences: 50, seed: 3, probes: 2 });
    expect(again).toEqual(a);
    const other = await repeatedSequences({ halfLength: 6, minHalfLength: 2, symbols: 8, sequences: 50, seed: 4, probes: 2 });
    expect(other.pairs).not.toEqual(a.pairs);
    expect(other.probes).toEqual(a.probes);
  });

  it('puts up to maxPrefix unrepeated symbols before the first half', async () => {
    const { pairs } = await repeatedSequences({ halfLength: 4, maxPrefix: 3, symbols: 8, sequences: 200, seed: 5 });
    const prefixes = new Set(pairs.map(([source, target]) => {
      expect(source.endsWith(target)).toBe(true);
      return source.split(' ').length - target.split(' ').length;
    }));
    expect([...prefixes].sort()).toEqual([0, 1, 2, 3]);
  });

  it('refuses options outside its limits', async () => {
    await expect(repeatedSequences({ halfLength: 9, symbols: 8 })).rejects.toThrow(/half length must be in \[2, symbols = 8\]/);
    await expect(repeatedSequences({ sequences: 0 })).rejects.toThrow(/sequences must be in/);
    await expect(repeatedSequences({ seed: -1 })).rejects.toThrow(AttnscopeError);
    await expect(repeatedSequences({ halfLength: 'x' })).rejects.toThrow(/halfLength must be an integer/);
  });
});

describe('successorWalks(options)', () => {
  const walk = ([source, target]) => [...source.split(' '), ...target.split(' ')];

  it('splits each walk in halves, from a seed, with the repeated-sequence probes', async () => {
    const a = await successorWalks({ symbols: 10, length: 21, sequences: 40, seed: 3, probeLength: 5, probes: 2 });
    expect(a.symbols).toEqual(Array.from({ length: 10 }, (_, i) => `s${i}`));
    expect(a.pairs.length).toBe(40);
    for (const [source, target] of a.pairs) {
      expect(source.split(' ').length).toBe(10);
      expect(target.split(' ').length).toBe(11);
      for (const w of [...source.split(' '), ...target.split(' ')]) expect(a.symbols).toContain(w);
    }
    expect(await successorWalks({ symbols: 10, length: 21, sequences: 40, seed: 3, probeLength: 5, probes: 2 })).toEqual(a);
    const other = await successorWalks({ symbols: 10, length: 21, sequences: 40, seed: 4, probeLength: 5, probes: 2 });
    expect(other.pairs).not.toEqual(a.pairs);
    expect(other.probes).toEqual((await repeatedSequences({ halfLength: 5, symbols: 10, sequences: 1, probes: 2 })).probes);
  });

  it('follows one successor per symbol in a walk without jumps', async () => {
    const { pairs } = await successorWalks({ symbols: 12, length: 60, jump: 0, sequences: 50 });
    for (const pair of pairs) {
      const words = walk(pair);
      const next = new Map();
      for (let t = 1; t < words.length; t++) {
        if (!next.has(words[t - 1])) next.set(words[t - 1], words[t]);
        expect(words[t]).toBe(next.get(words[t - 1]));
      }
    }
  });

  it('refuses options outside its limits', async () => {
    await expect(successorWalks({ length: 20, probeLength: 12 })).rejects.toThrow(/length must be in \[twice the probe length = 24, 512\], got 20/);
    await expect(successorWalks({ jump: 1.5 })).rejects.toThrow(/jump must be a probability in \[0, 1\], got 1.5/);
    await expect(successorWalks({ jump: 'x' })).rejects.toThrow(AttnscopeError);
    await expect(successorWalks({ symbols: 1 })).rejects.toThrow(/symbols must be in \[2, 1000\]/);
    await expect(successorWalks({ probes: 0 })).rejects.toThrow(/probes must be in \[1, 64\]/);
    await expect(successorWalks({ seed: 0.5 })).rejects.toThrow(/seed must be a non-negative integer/);
  });
});

describe('trainer.setPairs(pairs)', () => {
  it('trains the next epochs on the new pairs, the model and step count carrying on', async () => {
    const first = await repeatedSequences({ halfLength: 4, symbols: 6, sequences: 20, seed: 1 });
    const trainer = await createTrainer(first.pairs, { family: 'decoder_only', layers: 1, heads: 2, dModel: 16, dFf: 0, batchTokens: 64 });
    try {
      const one = trainer.runEpoch();
      const second = await repeatedSequences({ halfLength: 4, symbols: 6, sequences: 30, seed: 2 });
      trainer.setPairs(second.pairs);
      const two = trainer.runEpoch();
      expect(two.epoch).toBe(2);
      expect(one.exact).toBeGreaterThanOrEqual(0); // counted by default
      expect(two.total).toBe(30); // the exact count is of the new pairs
      expect(two.updates).toBeGreaterThan(one.updates);
      expect(() => trainer.setPairs([['s0', '']])).toThrow(/empty target/);
      expect(trainer.runEpoch().total).toBe(30); // a refused corpus leaves the last one
    } finally {
      trainer.dispose();
    }
  });
});

describe('createTrainer(pairs, {countExact: false})', () => {
  it('skips the exact-match count and trains the same weights', async () => {
    const { pairs } = await successorWalks({ symbols: 8, length: 16, sequences: 20, probeLength: 4, seed: 2 });
    const options = { family: 'decoder_only', layers: 1, heads: 2, dModel: 16, dFf: 0, batchTokens: 64 };
    const counted = await createTrainer(pairs, options);
    const uncounted = await createTrainer(pairs, { ...options, countExact: false });
    try {
      for (let e = 0; e < 2; e++) {
        const a = counted.runEpoch();
        const b = uncounted.runEpoch();
        expect(a.exact).toBeGreaterThanOrEqual(0);
        expect(b.exact).toBeNull();
        expect(b.total).toBe(20);
        expect(b.loss).toBe(a.loss); // the count decodes after the epoch: the training is the same
      }
      expect(uncounted.exportBytes()).toEqual(counted.exportBytes());
    } finally {
      counted.dispose();
      uncounted.dispose();
    }
    await expect(createTrainer(pairs, { ...options, countExact: 'no' })).rejects.toThrow(/countExact/);
  });
});
