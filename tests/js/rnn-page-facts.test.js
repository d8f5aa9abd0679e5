// What the page needs to adapt to an RNN, from the engine in Node: the site table says which
// sites record q/k/v (queryKeyValues; the analyses that need them refuse the others with a
// reason), and every golden RNN and the toy transformer get an architecture description from
// the engine (model.info.architectureDescription, which the page's web/app/model/architecture.js
// hands on) whose words and blocks come from their own config.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { describeArchitecture } from '../../web/app/model/architecture.js';
import { hasQueryKeyValues } from '../../web/app/model/sites.js';
import { root } from './helpers.js';

const RNN_DIR = join(root, 'tests/golden/rnn');
const rnnFiles = readdirSync(RNN_DIR).filter((f) => f.endsWith('.safetensors')).sort();
let toy;
beforeAll(async () => { toy = await loadModel(join(root, 'tests/models/toy-en-de.frozen.safetensors')); });
afterAll(() => toy?.dispose());

it('publishes queryKeyValues: true for the transformer\'s sites, false for the RNN\'s, whose analyses refuse with the reason', async () => {
  expect(toy.info.sites.map((s) => [s.name, s.queryKeyValues])).toEqual([['encoder', true], ['self', true], ['cross', true]]);
  const rnn = await loadModel(join(RNN_DIR, 'gru_bahdanau_additive.safetensors'));
  try {
    expect(rnn.info.sites.map((s) => [s.name, s.queryKeyValues])).toEqual([['cross', false]]);
    expect(hasQueryKeyValues(rnn.info.sites[0])).toBe(false);
    const s = rnn.translate('i can eat apple', { capture: { vectors: true } });
    s.step();
    const reason = /attention site 'cross' has no query\/key\/value vectors .*: value-weighted attention and attention logits do not apply to it/;
    expect(() => s.valueWeightedAttention('cross', 0)).toThrow(reason);
    expect(() => s.attentionLogits('cross', { layer: 0, head: 0, step: 0 })).toThrow(reason);
    expect(() => s.rollout()).toThrow(/this model has no self-attention over the source/);
    // The session still works after the refusals.
    expect(s.step().step).toBe(1);
    s.dispose();
  } finally {
    rnn.dispose();
  }
});

it('the engine describes every golden RNN and the toy transformer from its own config', async () => {
  expect(rnnFiles.length).toBeGreaterThanOrEqual(22);
  const seen = new Set();
  for (const file of rnnFiles) {
    const model = await loadModel(join(RNN_DIR, file));
    try {
      const c = model.info.config;
      const arch = model.info.architectureDescription;
      expect(describeArchitecture(model.info)).toBe(arch); // the page shows what the engine wrote
      expect(arch.family).toBe('RNN encoder-decoder');
      const cell = c.cell.toUpperCase();
      expect(arch.words).toContain(`${c.bidirectional ? 'bidirectional ' : ''}${cell} encoder (${c.n_encoder_layers} layer${c.n_encoder_layers === 1 ? '' : 's'}, ${c.d_encoder} units`);
      expect(arch.words).toContain(`${cell} decoder (${c.n_decoder_layers} layer${c.n_decoder_layers === 1 ? '' : 's'}, ${c.d_hidden} units)`);
      expect(arch.words.includes('input feeding')).toBe(c.input_feeding);
      expect(arch.words.includes(`local-p window ±${c.local_window}`)).toBe(c.local_window > 0);
      if (c.attention === 'none') {
        expect(arch.words).toContain('no attention');
        expect(arch.links).toEqual([{ from: 'enc', to: 'dec', label: 'final state only' }]);
      } else {
        expect(arch.words).toContain(`${c.attention === 'bahdanau' ? 'Bahdanau' : 'Luong'} attention`);
        expect(arch.blocks.find((b) => b.id === 'attn').detail.startsWith(c.score.replace('_', ' '))).toBe(true);
        expect(arch.links).toEqual([{ from: 'enc', to: 'attn', label: 'encoder states' }]);
      }
      // Links join blocks that exist; ids are unique.
      const ids = arch.blocks.map((b) => b.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const l of arch.links) expect(ids).toEqual(expect.arrayContaining([l.from, l.to]));
      seen.add(`${c.cell}/${c.attention}`);
    } finally {
      model.dispose();
    }
  }
  expect(seen).toEqual(new Set(['gru/bahdanau', 'gru/luong', 'gru/none', 'lstm/bahdanau', 'lstm/luong', 'lstm/none']));
  const t = toy.info.architectureDescription;
  expect(t.family).toBe('Transformer encoder-decoder');
  expect(t.words).toBe(`Transformer encoder-decoder: 1 encoder layer and 1 decoder layer, 1 head per attention, d_model ${toy.info.config.d_model}, FFN ${toy.info.config.d_ff} (relu), post-LayerNorm, sinusoidal positions; vocabulary 18 source, 17 target words.`);
  expect(t.blocks.map((b) => b.id)).toEqual(['src', 'enc', 'tgt', 'dec', 'out']);
  expect(t.blocks[4]).toEqual({ id: 'out', column: 'Decoder', label: 'Linear + softmax', detail: '17 target tokens' });
  expect(t.links).toEqual([{ from: 'enc', to: 'dec', label: 'memory' }]);
  // Plain data, which the page's worker posts as it is.
  expect(structuredClone(t)).toEqual(t);
});

it('describes a BERT and a decoder-only model from the engine too: the page names no family', async () => {
  const bert = await loadModel(join(root, 'tests/golden/bert/tiny_pooler.safetensors'));
  const gpt = await loadModel(join(root, 'tests/golden/decoder_only/attention_only_gelu.safetensors'));
  try {
    expect(bert.info.architectureDescription).toEqual({
      family: 'BERT encoder-only',
      words: 'BERT encoder-only: 2 layers, 2 heads each, d_model 8, FFN 16 (gelu), post-LayerNorm, learned positions (24) and 2 segments, a pooler, a masked-language-model head; vocabulary 27 WordPiece pieces.',
      blocks: [
        { id: 'src', column: 'Encoder', label: 'Token + position + segment', detail: 'd_model 8, 24 positions, LayerNorm' },
        { id: 'enc', column: 'Encoder', label: 'Encoder layer × 2', detail: 'self-attention (2 heads) · FFN 16 (gelu)' },
        { id: 'mlm', column: 'Encoder', label: 'MLM head', detail: 'transform + LayerNorm, tied decoder: 27 pieces' },
      ],
      links: [],
    });
    expect(gpt.info.architectureDescription.words).toBe('Decoder-only language model (GPT): 3 layers, 2 heads each, d_model 8, no FFN, pre-LayerNorm, learned positions (12: <s>, the prompt and the continuation), no encoder; vocabulary 18 words.');
    expect(gpt.info.architectureDescription.blocks.map((b) => `${b.id} ${b.column}: ${b.label} (${b.detail})`)).toEqual([
      'emb Decoder: Token + position (d_model 8, learned positions (12))',
      'dec Decoder: Decoder layer × 3 (causal self-attention (2 heads) · no FFN)',
      'out Decoder: Linear + softmax (tied: 18 words)',
    ]);
  } finally {
    bert.dispose();
    gpt.dispose();
  }
});
