// Whether a model file fits the engine's memory, judged by its header alone (web/model-header.js):
// its tensors as the load holds them (an F16 file in binary16 by default, binary32 with
// `binary16: false`), an allowance for activations from its config, and the engine's own. A file
// of GPT-2 medium's shape stored as F16 fits; the same file expanded to binary32, or 600 M
// parameters stored as F32, is refused with its size and the limit, before a byte of it reaches
// the engine. loadModel's `binary16` option: checked like int8, reported in model.info, and the
// same outputs bit for bit either way.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AttnscopeError, loadModel } from '../../web/attnscope.js';
import { WASM_MEMORY_LIMIT, checkModelFile } from '../../web/model-header.js';
import { path } from './helpers.js';

const gib = (n) => `${(n / 2 ** 30).toFixed(2)} GiB`;

/** A safetensors header (8 + N bytes) of `tensors` {name: [dtype, shape]}, laid end to end, and `metadata`. */
function header(tensors, metadata) {
  const json = { __metadata__: metadata };
  let offset = 0;
  for (const [name, [dtype, shape]] of Object.entries(tensors)) {
    const bytes = shape.reduce((a, d) => a * d, 1) * (dtype === 'F32' ? 4 : 2);
    json[name] = { dtype, shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  return headerBytes(json);
}

/** A header's 8 + N bytes: its length, then `json`. */
function headerBytes(json) {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const out = new Uint8Array(8 + text.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  return out;
}

/** GPT-2's tensors (models/FORMAT.md, decoder-only) at `layers` x `d`, its vocabulary and context, in `dtype`. */
function gpt2(dtype, { layers, d, heads, positions = 1024, vocabulary = 50257 }) {
  const tensors = { 'embed.token.weight': [dtype, [vocabulary, d]], 'embed.position.weight': [dtype, [positions, d]] };
  for (let l = 0; l < layers; ++l) {
    for (const p of ['q', 'k', 'v', 'out']) {
      tensors[`layers.${l}.self_attn.${p}_proj.weight`] = [dtype, [d, d]];
      tensors[`layers.${l}.self_attn.${p}_proj.bias`] = [dtype, [d]];
    }
    for (const norm of ['self_attn_norm', 'ffn_norm']) {
      tensors[`layers.${l}.${norm}.weight`] = [dtype, [d]];
      tensors[`layers.${l}.${norm}.bias`] = [dtype, [d]];
    }
    tensors[`layers.${l}.ffn.fc1.weight`] = [dtype, [4 * d, d]];
    tensors[`layers.${l}.ffn.fc1.bias`] = [dtype, [4 * d]];
    tensors[`layers.${l}.ffn.fc2.weight`] = [dtype, [d, 4 * d]];
    tensors[`layers.${l}.ffn.fc2.bias`] = [dtype, [d]];
  }
  tensors['final_norm.weight'] = [dtype, [d]];
  tensors['final_norm.bias'] = [dtype, [d]];
  tensors['output.bias'] = [dtype, [vocabulary]];
  const vocab = JSON.stringify(Array.from({ length: vocabulary }, (_, i) => `t${i}`));
  const config = {
    architecture: 'decoder_only', d_model: d, n_heads: heads, d_ff: 4 * d, n_layers: layers, activation: 'gelu_tanh',
    norm: 'pre', positions: 'learned', max_positions: positions, embedding_scale: 1, tied_output: true, layer_norm_eps: 1e-5,
    special_tokens: { pad: 0, unk: 0, bos: 0, eos: 0 },
  };
  return header(tensors, { format: 'attnscope', format_version: '1', config: JSON.stringify(config), src_vocab: vocab, tgt_vocab: vocab });
}

const GPT2_MEDIUM = { layers: 24, d: 1024, heads: 16 };

/** The message of the AttnscopeError loadModel rejects with. */
async function loadError(source, options) {
  try {
    (await loadModel(source, options)).dispose();
  } catch (e) {
    expect(e).toBeInstanceOf(AttnscopeError);
    return e.message;
  }
  throw new Error('the model loaded');
}

describe('the size rule', () => {
  it('lets in a file of GPT-2 medium\'s shape stored as F16, held in binary16', () => {
    const fit = checkModelFile(gpt2('F16', GPT2_MEDIUM), 'gpt2-medium');
    expect(fit.parameters).toBeGreaterThan(354_000_000);
    expect(fit.parameters).toBeLessThan(356_000_000);
    // 0.66 GiB of tensors; the allowance (a beam of 4's KV caches over 1024 positions, 0.75 GiB) on top.
    expect(fit.needBytes).toBeGreaterThan(2 * fit.parameters + 0.75 * 2 ** 30);
    expect(fit.needBytes).toBeLessThan(WASM_MEMORY_LIMIT);
  });

  it('holds a BF16 file as it holds an F16 one: 2 bytes a weight', () => {
    const f16 = checkModelFile(gpt2('F16', GPT2_MEDIUM), 'gpt2-medium');
    const bf16 = checkModelFile(gpt2('BF16', GPT2_MEDIUM), 'gpt2-medium');
    // Only the header differs: one more byte for each tensor's dtype name.
    expect(bf16.needBytes - f16.needBytes).toBe(bf16.fileBytes - f16.fileBytes);
    expect(bf16.fileBytes - f16.fileBytes).toBeLessThan(1024);
    expect(() => checkModelFile(gpt2('BF16', GPT2_MEDIUM), 'gpt2-medium', { binary16: false })).toThrow(/as f32/);
  });

  it('refuses the same file expanded to binary32, and says why', () => {
    const file = gpt2('F16', GPT2_MEDIUM);
    const { parameters } = checkModelFile(file, 'gpt2-medium');
    expect(() => checkModelFile(file, 'gpt2-medium', { binary16: false })).toThrow(
      new RegExp(`^gpt2-medium is too big: the engine would need [\\d.]+ GiB for it \\(its tensors ${gib(4 * parameters)}: ${parameters} parameters, as f32; .*\\), over its limit of 2\\.00 GiB$`));
  });

  it('refuses 600 M parameters stored as F32, with the size and the limit, before the engine sees a byte', async () => {
    const file = gpt2('F32', { layers: 37, d: 1120, heads: 16 });
    // Per layer 12 d² + 13 d; the embeddings, the final norm and the output bias.
    const parameters = 37 * (12 * 1120 ** 2 + 13 * 1120) + (50257 + 1024) * 1120 + 2 * 1120 + 50257;
    expect(parameters).toBeGreaterThan(600_000_000);
    expect(parameters).toBeLessThan(620_000_000);
    const message = await loadError(file);
    expect(message).toMatch(/^the model file is too big: the engine would need [\d.]+ GiB for it/);
    expect(message).toContain(`its tensors ${gib(4 * parameters)}: ${parameters} parameters, as f32`);
    expect(message).toContain('over its limit of 2.00 GiB');
    // binary16 changes nothing for a file stored as F32.
    expect(await loadError(file, { binary16: true })).toBe(message);
  });

  it('judges a download by the option it is loaded with', async () => {
    const file = gpt2('F16', GPT2_MEDIUM);
    expect(await loadError(new Response(file), { binary16: false })).toMatch(/is too big: .*limit of 2\.00 GiB/);
    // In binary16 it fits: the download goes on, and the engine says the tensors are missing.
    expect(await loadError(new Response(file))).not.toMatch(/too big/);
  });

  it('leaves a config that claims more than its tensors hold to the engine', () => {
    // A width no tensor backs counts as the widest tensor: the allowance stays small, and the
    // engine, not this rule, refuses the file in its own words.
    const file = gpt2('F16', { layers: 1, d: 16, heads: 1, positions: 16, vocabulary: 20 });
    const json = JSON.parse(new TextDecoder().decode(file.subarray(8)));
    json.__metadata__.config = JSON.stringify({ ...JSON.parse(json.__metadata__.config), d_model: 16384, n_layers: 64 });
    expect(checkModelFile(headerBytes(json), 'claim').needBytes).toBeLessThan(128 * 2 ** 20);
  });
});

describe('loadModel\'s binary16 option', () => {
  const F16 = new Uint8Array(readFileSync(path('tests/golden/deep_post_learned_f16.safetensors')));

  it('is true or false', async () => {
    for (const wrong of ['yes', 1, null, {}]) {
      expect(await loadError(F16, { binary16: wrong })).toBe(`binary16 must be true or false, got ${JSON.stringify(wrong)}`);
    }
  });

  it('is reported in model.info, and changes no output', async () => {
    const half = await loadModel(F16);
    const single = await loadModel(F16, { binary16: false });
    try {
      expect(half.info.binary16).toBe(true);
      expect(single.info.binary16).toBe(false);
      for (const text of ['we can read book', 'the cat eat fish']) {
        const options = { strategy: 'beam', beamSize: 3, maxLength: 12, capture: { attention: true, logits: true } };
        const a = half.translate(text, options).run();
        const b = single.translate(text, options).run();
        try {
          expect(b.nbest()).toEqual(a.nbest());
          expect(b.steps).toBe(a.steps);
          expect(b.encoderAttention().data).toEqual(a.encoderAttention().data);
          for (let step = 0; step < a.steps; ++step) {
            const expansions = a.history(step).expansions.length;
            expect(b.history(step)).toEqual(a.history(step));
            for (let hypothesis = 0; hypothesis < expansions; ++hypothesis) {
              expect(b.logits(step, { hypothesis })).toEqual(a.logits(step, { hypothesis }));
              expect(b.crossAttention(step, { hypothesis }).data).toEqual(a.crossAttention(step, { hypothesis }).data);
              expect(b.selfAttention(step, { hypothesis }).data).toEqual(a.selfAttention(step, { hypothesis }).data);
            }
          }
        } finally {
          a.dispose();
          b.dispose();
        }
      }
    } finally {
      half.dispose();
      single.dispose();
    }
  });
});
