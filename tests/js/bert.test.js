// Encoder-only models in WASM (model.encode, model.fillMask) against the native CLI
// (attnscope-cli fill-mask --json) and the PyTorch goldens of tests/golden/bert/.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { AttnscopeError, loadModel } from '../../web/attnscope.js';
import { cli, path } from './helpers.js';

const TINY = path('tests/golden/bert/tiny_pooler.safetensors');
const SMALL = path('tests/golden/bert/small_mlm.safetensors');
const golden = (name) => JSON.parse(readFileSync(path(`tests/golden/bert/${name}.json`), 'utf8'));

function maxDiff(a, b) {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    if (Number.isNaN(a[i]) || Number.isNaN(b[i])) return Infinity;
    worst = Math.max(worst, Math.abs(a[i] - b[i]));
  }
  return worst;
}

describe('encoder-only (BERT) models in WASM', () => {
  it('fill-mask agrees with the native CLI: pieces, segments, top-k and every attention weight', async () => {
    const m = await loadModel(SMALL);
    expect(m.info.architecture).toBe('bert');
    expect(m.info.sites.map((s) => [s.name, s.layers, s.heads, s.perStep])).toEqual([['self', 3, 3, false]]);
    for (const text of ['i want to eat [MASK] .', 'I want [MASK] [MASK] bread!', 'i want to eat bananas [SEP] [MASK]']) {
      const native = JSON.parse(cli(['fill-mask', '--model', SMALL, '--json', '--top-k', '4', text]));
      const wasm = m.fillMask(text, { topK: 4 });
      expect(wasm.tokens).toEqual(native.tokens);
      expect(wasm.ids).toEqual(native.ids);
      expect(wasm.segments).toEqual(native.segments);
      expect(wasm.masks.map((k) => k.position)).toEqual(native.masks.map((k) => k.position));
      expect(wasm.masks.map((k) => k.topK.map((c) => c.token))).toEqual(native.masks.map((k) => k.top_k.map((c) => c.token)));
      expect(maxDiff(wasm.masks.flatMap((k) => k.topK.map((c) => c.prob)),
        native.masks.flatMap((k) => k.top_k.map((c) => c.prob)))).toBeLessThan(1e-5);
      const a = wasm.attention.self;
      expect(a.shape).toEqual([3, 3, wasm.tokens.length, wasm.tokens.length]);
      expect(maxDiff(a.data, native.attention.self.flat(3))).toBeLessThan(1e-5);
    }
    m.dispose();
  });

  it('encode returns the hidden states, attention and value vectors of the PyTorch reference', async () => {
    const m = await loadModel(TINY);
    const g = golden('tiny_pooler');
    for (const c of g.cases) {
      const e = m.encode(c.text, { vectors: true });
      expect(e.tokens).toEqual(c.pieces);
      expect(e.segments).toEqual(c.segments);
      expect(e.hidden.shape).toEqual([c.pieces.length, 8]);
      expect(maxDiff(e.hidden.data, c.output.flat())).toBeLessThan(1e-4);
      expect(maxDiff(e.attention.self.data, c.attention.flat(3))).toBeLessThan(1e-4);
      expect(maxDiff(e.vectors['layers.1.transformed_values'].data, c.layers[1].transformed_values.flat())).toBeLessThan(1e-4);
      expect(maxDiff(e.vectors.pooled.data, c.pooled.flat())).toBeLessThan(1e-4);
    }
    m.dispose();
  });

  it('bad input and decoder-only calls are errors that say what was wrong', async () => {
    const m = await loadModel(TINY);
    expect(() => m.fillMask('i want to eat')).toThrow(/no \[MASK\]/);
    expect(() => m.fillMask('i want [MASK]', { topK: 0 })).toThrow(AttnscopeError);
    expect(() => m.fillMask('i want [MASK]', { topK: 'x' })).toThrow(/topK must be an integer/);
    expect(() => m.encode('   ')).toThrow(/no tokens/);
    expect(() => m.encode('i '.repeat(40))).toThrow(/at most 24/);
    expect(() => m.translate('i want to eat')).toThrow(/has no decoder/);
    // the engine is still usable afterwards
    expect(m.fillMask('i want [MASK]', { topK: 2 }).masks[0].topK).toHaveLength(2);
    m.dispose();
  });
});
