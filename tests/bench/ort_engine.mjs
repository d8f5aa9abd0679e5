// Greedy decoding with onnxruntime-web (WASM backend, 1 thread) over the graphs written by
// tests/bench/export_onnx.py: encoder_model.onnx, decoder_model.onnx (first step, computes the
// cross-attention keys/values) and decoder_with_past_model.onnx (every later step); or their
// dynamically quantized copies *.q8.onnx (tests/bench/quantize_onnx.py), the graphs a
// transformers.js user runs by default.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';

export { ort };

/** ORT's WASM backend as the benchmark uses it: SIMD build, one thread, no proxy worker. */
export function configureOrt() {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  if ('simd' in ort.env.wasm) ort.env.wasm.simd = true;  // the only build ORT-web >= 1.19 ships is SIMD
  ort.env.logLevel = 'error';
}

const int64 = (ids) => new ort.Tensor('int64', BigInt64Array.from(ids, (v) => BigInt(v)), [1, ids.length]);

/** Index of the largest value, the lowest index on ties (as the engine and PyTorch pick). */
export function argmax(values, offset = 0, length = values.length - offset) {
  let best = 0;
  let bestValue = values[offset];
  for (let i = 1; i < length; ++i) {
    const v = values[offset + i];
    if (v > bestValue) { bestValue = v; best = i; }
  }
  return best;
}

/** The graphs' file names: `variant` 'fp32' (the export) or 'q8' (quantize_onnx.py's copies). */
export function graphFiles(variant = 'fp32') {
  if (variant !== 'fp32' && variant !== 'q8') throw new Error(`ORT graph variant is 'fp32' or 'q8', got '${variant}'`);
  const suffix = variant === 'q8' ? '.q8.onnx' : '.onnx';
  return ['encoder_model', 'decoder_model', 'decoder_with_past_model'].map((name) => name + suffix);
}

export class OrtTranslator {
  /**
   * `dir` holds the three graphs; `config` is the model's config (special tokens, layers);
   * `variant` picks the fp32 graphs or their q8 copies.
   */
  static async create(dir, config, { variant = 'fp32' } = {}) {
    configureOrt();
    const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all', intraOpNumThreads: 1, interOpNumThreads: 1 };
    const load = async (name) => {
      try {
        return await ort.InferenceSession.create(await readFile(join(dir, name)), options);
      } catch (e) {
        throw new Error(`onnxruntime-web cannot load ${join(dir, name)}: ${e.message}`);
      }
    };
    const sessions = [];
    for (const name of graphFiles(variant)) sessions.push(await load(name));
    return new OrtTranslator(...sessions, config, variant);
  }

  constructor(encoder, first, withPast, config, variant = 'fp32') {
    this.variant = variant;
    this.encoder = encoder;
    this.first = first;
    this.withPast = withPast;
    this.config = config;
    this.layers = config.n_decoder_layers;
  }

  async encode(sourceIds) {
    const out = await this.encoder.run({ input_ids: int64(sourceIds) });
    return out.last_hidden_state;
  }

  /**
   * Greedy decode of `sourceIds` (</s> included) for at most `maxLength` tokens.
   * Returns {ids, encodeMs, decodeMs, firstTokenMs, logits?}: ids generated (</s> included
   * when reached), the encoder graph's time, the time of all decoder steps (the first one
   * projects the cross-attention keys and values) and the time from the start to the first
   * token. `keepLogits` keeps every step's logits (for checks); `force` (ids) feeds those tokens
   * instead of the argmax (teacher forcing, to compare two graphs' logits on one path), and
   * stops after them.
   */
  async greedy(sourceIds, maxLength, { keepLogits = false, force = null, now = performance.now.bind(performance) } = {}) {
    const { bos, eos } = this.config.special_tokens;
    const limit = force ? force.length : Math.max(1, Math.min(maxLength, this.config.max_positions - 1));
    const t0 = now();
    const memory = await this.encode(sourceIds);
    const t1 = now();
    const ids = [];
    const logits = [];
    let token = bos;
    let cross = null;
    let past = null;
    let firstTokenMs = 0;
    for (let step = 0; step < limit; ++step) {
      let out;
      if (step === 0) {
        out = await this.first.run({ input_ids: int64([token]), encoder_hidden_states: memory });
        cross = [];
        for (let i = 0; i < this.layers; ++i) cross.push(out[`present.${i}.encoder.key`], out[`present.${i}.encoder.value`]);
      } else {
        const feeds = { input_ids: int64([token]) };
        for (let i = 0; i < this.layers; ++i) {
          feeds[`past_key_values.${i}.decoder.key`] = past[2 * i];
          feeds[`past_key_values.${i}.decoder.value`] = past[2 * i + 1];
          feeds[`past_key_values.${i}.encoder.key`] = cross[2 * i];
          feeds[`past_key_values.${i}.encoder.value`] = cross[2 * i + 1];
        }
        out = await this.withPast.run(feeds);
      }
      past = [];
      for (let i = 0; i < this.layers; ++i) past.push(out[`present.${i}.decoder.key`], out[`present.${i}.decoder.value`]);
      const data = out.logits.data;
      if (keepLogits) logits.push(Array.from(data));
      token = force ? force[step] : argmax(data);
      ids.push(token);
      if (step === 0) firstTokenMs = now() - t0;
      if (token === eos && !force) break;
    }
    const t2 = now();
    return { ids, encodeMs: t1 - t0, decodeMs: t2 - t1, firstTokenMs, ...(keepLogits ? { logits } : {}) };
  }

  async release() {
    for (const s of [this.encoder, this.first, this.withPast]) await s.release();
  }
}
