// The head study of encoder-only models in WASM (model.headStudy, model.headAblation) against the
// native CLI (attnscope-cli bert-study --json) on the golden models of tests/golden/bert/, and
// against the PyTorch reference's goldens (models/goldens/make_bert_study_goldens.py -> study.json).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { AttnscopeError, loadModel } from '../../web/attnscope.js';
import { cli, path } from './helpers.js';

const SMALL = path('tests/golden/bert/small_mlm.safetensors');
const STUDY = path('tests/golden/bert/study_mlm.safetensors');
const golden = JSON.parse(readFileSync(path('tests/golden/bert/study.json'), 'utf8'));
const KINDS = ['cls', 'sep', 'punct', 'prev', 'next'];

/** Largest |a - b| over the five shares of every layer (and head); NaN anywhere is Infinity. */
function sharesDiff(a, b) {
  const flat = (x) => x.flat().flatMap((s) => KINDS.map((k) => s[k]));
  const fa = flat(a);
  const fb = flat(b);
  expect(fa.length).toBe(fb.length);
  let worst = 0;
  for (let i = 0; i < fa.length; i++) {
    if (!Number.isFinite(fa[i]) || !Number.isFinite(fb[i])) return Infinity;
    worst = Math.max(worst, Math.abs(fa[i] - fb[i]));
  }
  return worst;
}

describe('the BERT head study in WASM', () => {
  it('headStudy equals the native CLI: tokens, every head\'s pattern, raw and norm-weighted shares', async () => {
    for (const file of [SMALL, STUDY]) {
      const m = await loadModel(file);
      for (const text of ['I want [MASK] [MASK] bread!', 'i can eat apple [SEP] we want to drink beer', 'we read book , i read newspaper .']) {
        const native = JSON.parse(cli(['bert-study', '--model', file, '--json', text]));
        const wasm = m.headStudy(text);
        expect(wasm.tokens).toEqual(native.tokens);
        expect(wasm.patterns).toEqual(native.patterns);
        for (const key of ['raw', 'norm', 'rawHeads', 'normHeads']) expect(sharesDiff(wasm.shares[key], native.shares[key])).toBeLessThan(1e-6);
        const [L, H, T] = wasm.attention.shape;
        expect([L, H, T]).toEqual([native.patterns.length, native.patterns[0].length, wasm.tokens.length]);
      }
      m.dispose();
    }
  });

  it('headStudy equals the PyTorch reference (study.json)', async () => {
    for (const [name, g] of Object.entries(golden.models)) {
      const m = await loadModel(path(`tests/golden/bert/${g.model}`));
      for (const c of g.cases) {
        const s = m.headStudy(c.text);
        expect(s.tokens, name).toEqual(c.pieces);
        expect(s.patterns, name).toEqual(c.patterns);
        expect(sharesDiff(s.shares.raw, c.raw)).toBeLessThan(1e-4);
        expect(sharesDiff(s.shares.norm, c.norm)).toBeLessThan(1e-4);
        expect(sharesDiff(s.shares.normHeads, c.norm_heads)).toBeLessThan(1e-4);
      }
      m.dispose();
    }
  });

  it('headAblation equals the native CLI and the PyTorch counts, with progress per head', async () => {
    const g = golden.ablation;
    const file = join(mkdtempSync(join(tmpdir(), 'attnscope-')), 'sentences.txt');
    writeFileSync(file, `${g.sentences.join('\n')}\n`);
    const native = JSON.parse(cli(['bert-study', '--model', STUDY, '--sentences', file, '--json'])).ablation;
    const m = await loadModel(STUDY);
    const seen = [];
    const wasm = m.headAblation(g.sentences, { onProgress: (done, total) => seen.push([done, total]) });
    expect(seen).toEqual([[0, 4], [1, 4], [2, 4], [3, 4], [4, 4]]);
    for (const a of [wasm, native]) {
      expect(a.positions).toBe(g.positions);
      expect(a.baseCorrect).toBe(g.base_correct);
      expect(a.correct).toEqual(g.correct);
      expect(a.baseAccuracy).toBeCloseTo(g.base_accuracy, 12);
      a.delta.flat().forEach((d, i) => expect(d).toBeCloseTo(g.delta.flat()[i], 12));
    }
    expect(wasm.sentences).toBe(g.sentences.length);
    expect(native.sentences).toBe(g.sentences.length);
    m.dispose();
  });

  it('bad input is an error that says what was wrong, and the engine stays usable', async () => {
    const m = await loadModel(STUDY);
    expect(() => m.headAblation([])).toThrow(/at least one sentence/);
    expect(() => m.headAblation('i eat bread')).toThrow(/array of sentences/);
    expect(() => m.headAblation(['i eat bread', '  '])).toThrow(/sentence 2/);
    expect(() => m.headAblation(['[MASK]'])).toThrow(/no piece to mask/);
    expect(() => m.headAblation(['i eat bread'], { onProgress: 3 })).toThrow(AttnscopeError);
    expect(() => m.headStudy('   ')).toThrow(/no tokens/);
    expect(() => m.headStudy('i '.repeat(40))).toThrow(/at most 32/);
    expect(m.headStudy('i eat bread').patterns).toHaveLength(2);
    m.dispose();
    expect(m.info.hasDecoder).toBe(false);
    const toy = await loadModel(path('tests/models/toy-en-de.frozen.safetensors'));
    expect(toy.info.hasDecoder).toBe(true);
    expect(() => toy.headStudy('i can eat apple')).toThrow(/needs a BERT/);
    toy.dispose();
  });
});
