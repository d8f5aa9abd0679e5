// The analyses of an encoder-only model's encoding in WASM (model.textAnalysis,
// model.textAttentionLogits, headStudy and fillMask with heads switched off) against the PyTorch
// reference's goldens (models/goldens/make_encoding_analysis_goldens.py ->
// tests/golden/bert/encoding_analysis.json); and the interventions each family refuses
// (model.info.refusedInterventions): the engine refuses exactly those, and the page's helpers
// (web/app/panels/interventions.js) offer and carry over only the others.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadModel } from '../../web/attnscope.js';
import { PRESETS, fitInterventions, presetApplies } from '../../web/app/panels/interventions.js';
import { noInterventions } from '../../web/app/state/state.js';
import { path, root } from './helpers.js';

const golden = JSON.parse(readFileSync(path('tests/golden/bert/encoding_analysis.json'), 'utf8'));

/** Largest |a - b| over nested arrays and a flat typed array; NaN anywhere is Infinity. */
function worst(want, got) {
  const w = [want].flat(Infinity);
  expect(got.length).toBe(w.length);
  let m = 0;
  for (let i = 0; i < w.length; i++) {
    if (!Number.isFinite(got[i]) || !Number.isFinite(w[i])) return Infinity;
    m = Math.max(m, Math.abs(got[i] - w[i]));
  }
  return m;
}

const masking = (heads) => ({ maskHeads: heads.map(([layer, head]) => ({ site: 'self', layer, head })) });

let bert;
let toy;
let rnn;
beforeAll(async () => {
  bert = await loadModel(path(`tests/golden/bert/${golden.model}`));
  toy = await loadModel(join(root, 'tests/models/toy-en-de.frozen.safetensors'));
  rnn = await loadModel(path('tests/golden/rnn/gru_bahdanau_additive.safetensors'));
});
afterAll(() => { for (const m of [bert, toy, rnn]) m?.dispose(); });

describe('an encoding\'s analyses in WASM', () => {
  it('equal the PyTorch reference, with and without heads switched off', () => {
    expect(golden.cases).toHaveLength(6);
    for (const c of golden.cases) {
      const interventions = masking(c.masked);
      const a = bert.textAnalysis(c.text, { interventions });
      expect(a.tokens).toEqual(c.pieces);
      expect(a.site).toBe('self');
      const T = c.pieces.length;
      expect(a.rollout.shape).toEqual([T, T]);
      expect(worst(c.rollout, a.rollout.data)).toBeLessThan(1e-4);
      expect(a.valueWeighted.self.shape).toEqual([2, 2, T, T]);
      expect(worst(c.weighted, a.valueWeighted.self.data)).toBeLessThan(1e-4);
      expect(a.patterns).toEqual(c.patterns);
      for (const [layer, head, query] of [[0, 0, 0], [0, 1, 3], [1, 1, T - 1]]) {
        const { logits, weights } = bert.textAttentionLogits(c.text, { site: 'self', layer, head, query, interventions });
        expect(worst(c.logits[layer][head][query], logits)).toBeLessThan(1e-4);
        const row = a.attention.self.data.subarray(((layer * 2 + head) * T + query) * T, ((layer * 2 + head) * T + query + 1) * T);
        expect(Array.from(weights)).toEqual(Array.from(row));
      }
      const fill = bert.fillMask(c.text, { topK: 3, interventions });
      expect(fill.masks.map((m) => m.topK.map((x) => x.id))).toEqual(c.fill.map((f) => f.ids));
      for (const [i, f] of c.fill.entries()) expect(worst(f.probs, fill.masks[i].topK.map((x) => x.prob))).toBeLessThan(1e-4);
    }
  });

  it('the head study follows the interventions, and refuses a bad site or position', () => {
    const text = golden.cases[0].text;
    const plain = bert.headStudy(text);
    expect(bert.headStudy(text, { interventions: {} })).toEqual(plain);
    const off = bert.headStudy(text, { interventions: masking([[0, 1]]) });
    // A head switched off still attends: layer 1's maps are the same, layer 2's (it reads layer 1's output) are not.
    const L1 = plain.attention.data.length / 2;
    expect(Array.from(off.attention.data.subarray(0, L1))).toEqual(Array.from(plain.attention.data.subarray(0, L1)));
    expect(Array.from(off.attention.data.subarray(L1))).not.toEqual(Array.from(plain.attention.data.subarray(L1)));
    expect(() => bert.textAttentionLogits(text, { site: 'cross' })).toThrow(/unknown attention site 'cross'/);
    expect(() => bert.textAttentionLogits(text, { site: 'self', query: 99 })).toThrow(/query 99 is out of range/);
    expect(() => bert.textAnalysis(text, { interventions: { lastSourceState: true } })).toThrow(/no decoder/);
    expect(() => toy.textAnalysis(text)).toThrow(/needs a BERT/);
  });
});

describe('what each family refuses', () => {
  const use = {
    maskHeads: (site) => ({ maskHeads: [{ site, layer: 0, head: 0 }] }),
    copySourceEncoding: () => ({ copySourceEncoding: true }),
    lastSourceState: () => ({ lastSourceState: true }),
  };
  const OPTIONS = ['maskHeads', 'encoderSelfAttention', 'decoderSelfAttention', 'crossAttention', 'ffn', 'layerNorm', 'copySourceEncoding', 'lastSourceState'];
  const run = (m, iv) => (m.info.hasDecoder ? m.translate('i can eat apple', { interventions: iv }).dispose() : m.fillMask('i want [MASK]', { interventions: iv }));

  it('is published in model.info, and the engine refuses exactly that', () => {
    expect(toy.info.refusedInterventions).toEqual(['lastSourceState']);
    expect(bert.info.refusedInterventions).toEqual(['decoderSelfAttention', 'crossAttention', 'copySourceEncoding', 'lastSourceState']);
    expect(rnn.info.refusedInterventions).toEqual(['maskHeads', 'encoderSelfAttention', 'decoderSelfAttention', 'ffn', 'layerNorm']);
    for (const m of [toy, bert, rnn]) {
      for (const option of OPTIONS) {
        const iv = (use[option] ?? (() => ({ skip: [option] })))(m.info.sites[0]?.name);
        if (m.info.refusedInterventions.includes(option)) expect(() => run(m, iv), `${m.info.architecture} ${option}`).toThrow();
        else expect(() => run(m, iv), `${m.info.architecture} ${option}`).not.toThrow();
      }
    }
  });

  it('the page carries over to a model only what it takes, and offers only the presets it takes', () => {
    const iv = { ...noInterventions(), attention: [{ site: 'cross', layer: '*', head: '*', pattern: 'uniform' }],
      maskHeads: [{ site: 'encoder', layer: 0, head: 0 }, { site: 'self', layer: 0, head: 0 }], skip: ['crossAttention', 'ffn'], copySourceEncoding: true, lastSourceState: true };
    expect(fitInterventions(iv, bert.info.sites, null, bert.info)).toEqual({
      attention: [], maskHeads: [{ site: 'self', layer: 0, head: 0 }], skip: ['ffn'],
    });
    expect(fitInterventions(iv, toy.info.sites, 5, toy.info)).toEqual({
      attention: iv.attention, maskHeads: iv.maskHeads, skip: ['crossAttention', 'ffn'], copySourceEncoding: true,
    });
    const offered = (m) => PRESETS.filter((p) => presetApplies(p, m.info.sites, m.info)).map((p) => p.id);
    expect(offered(toy)).toEqual(PRESETS.map((p) => p.id));
    expect(offered(bert)).toEqual(['no-ffn', 'no-layernorm']);
    expect(offered(rnn)).toEqual(['uniform', 'beginning', 'end', 'no-attention', 'copy-source']);
  });
});
