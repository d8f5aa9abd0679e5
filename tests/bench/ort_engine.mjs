// Greedy decoding with onnxruntime-web (WASM backend, 1 thread) over the graphs written by
// tests/bench/export_onnx.py: encoder_model.onnx, decoder_model.onnx (first step, computes the
// cross-attention keys/values) and decoder_with_past_model.onnx (every later step); or their
// dynamically quantized copies *.q8.onnx (tests/bench/quantize_onnx.py), the graphs a
// transformers.js user runs by default. A decoder-only model (GPT-2: tests/bench/hf_gpt2_onnx.py)
// has no encoder: decoder_model.onnx reads <bos> and the prompt, decoder_with_past_model.onnx one
// token on the key/value cache (OrtGenerator).
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

/**
 * Index of the largest value, the lowest index on ties (as the engine and PyTorch pick), never
 * one of `skip` (the model's suppress_tokens: attnscope bans them, transformers.js's
 * NoBadWordsLogitsProcessor does the same with Marian's bad_words_ids).
 */
export function argmax(values, skip = new Set()) {
  let best = -1;
  let bestValue = -Infinity;
  for (let i = 0; i < values.length; ++i) {
    const v = values[i];
    if ((best < 0 || v > bestValue) && !skip.has(i)) { bestValue = v; best = i; }
  }
  return best;
}

const isDecoderOnly = (config) => config?.architecture === 'decoder_only';

/**
 * The graphs' file names for the model of `config` (a decoder-only model has no encoder graph):
 * `variant` 'fp32' (the export) or 'q8' (quantize_onnx.py's copies).
 */
export function graphFiles(variant = 'fp32', config = null) {
  if (variant !== 'fp32' && variant !== 'q8') throw new Error(`ORT graph variant is 'fp32' or 'q8', got '${variant}'`);
  const suffix = variant === 'q8' ? '.q8.onnx' : '.onnx';
  const names = isDecoderOnly(config) ? ['decoder_model', 'decoder_with_past_model'] : ['encoder_model', 'decoder_model', 'decoder_with_past_model'];
  return names.map((name) => name + suffix);
}

/**
 * ORT's sessions of the graphs in `dir` for the model of `config`: an OrtGenerator for a
 * decoder-only model, else an OrtTranslator. `variant` picks the fp32 graphs or their q8 copies;
 * `graphs`, the files' bytes already read (in graphFiles' order), spares the reads (a load timed
 * from the bytes in memory).
 */
export async function createOrt(dir, config, { variant = 'fp32', graphs = null } = {}) {
  configureOrt();
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all', intraOpNumThreads: 1, interOpNumThreads: 1 };
  const load = async (name, i) => {
    try {
      return await ort.InferenceSession.create(graphs?.[i] ?? await readFile(join(dir, name)), options);
    } catch (e) {
      throw new Error(`onnxruntime-web cannot load ${join(dir, name)}: ${e.message}`);
    }
  };
  const sessions = [];
  for (const [i, name] of graphFiles(variant, config).entries()) sessions.push(await load(name, i));
  return isDecoderOnly(config) ? new OrtGenerator(...sessions, config) : new OrtTranslator(...sessions, config, variant);
}

export class OrtTranslator {
  /** `dir` holds the three graphs; `config` is the model's config (special tokens, layers); createOrt's options. */
  static create(dir, config, options = {}) {
    if (isDecoderOnly(config)) throw new Error(`${dir}: a decoder-only model's graphs make an OrtGenerator (createOrt)`);
    return createOrt(dir, config, options);
  }

  constructor(encoder, first, withPast, config, variant = 'fp32') {
    this.variant = variant;
    this.encoder = encoder;
    this.first = first;
    this.withPast = withPast;
    this.config = config;
    this.layers = config.n_decoder_layers;
    this.suppress = new Set(config.suppress_tokens ?? []);
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
   * stops after them; `minLength`: </s> is not chosen before that many tokens (attnscope's
   * minLength, HF's MinLengthLogitsProcessor).
   */
  async greedy(sourceIds, maxLength, { keepLogits = false, force = null, minLength = 0, now = performance.now.bind(performance) } = {}) {
    const { bos, eos } = this.config.special_tokens;
    const limit = force ? force.length : Math.max(1, Math.min(maxLength, this.config.max_positions - 1));
    const withEos = new Set([...this.suppress, eos]);
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
      token = force ? force[step] : argmax(data, step < minLength ? withEos : this.suppress);
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

/**
 * Greedy continuation with a decoder-only model's two graphs: the first reads <bos> and the
 * prompt at once (the prompt's keys and values, the last position's logits), each later step one
 * token on that cache, as attnscope's first and later steps do.
 */
export class OrtGenerator {
  constructor(first, withPast, config) {
    this.first = first;
    this.withPast = withPast;
    this.config = config;
    this.layers = config.n_layers;
    this.suppress = new Set(config.suppress_tokens ?? []);
  }

  /**
   * Greedy continuation of the prompt `promptIds` (<bos> is put before them) for at most
   * `maxLength` tokens, stopping where the context (max_positions) is full. Returns {ids,
   * encodeMs: 0, decodeMs, firstTokenMs, laterStepsMs, logits?}: the first step's time is the
   * prompt's (firstTokenMs), laterStepsMs those of the steps after it; `keepLogits`, `force` and
   * `minLength` as OrtTranslator.greedy's.
   */
  async greedy(promptIds, maxLength, { keepLogits = false, force = null, minLength = 0, now = performance.now.bind(performance) } = {}) {
    const { bos, eos } = this.config.special_tokens;
    const room = this.config.max_positions - 1 - promptIds.length;
    const limit = force ? force.length : Math.max(1, Math.min(maxLength, room + 1));
    const withEos = new Set([...this.suppress, eos]);
    const t0 = now();
    const ids = [];
    const logits = [];
    let past = null;
    let firstTokenMs = 0;
    for (let step = 0; step < limit; ++step) {
      const feeds = { input_ids: int64(step === 0 ? [bos, ...promptIds] : [ids[step - 1]]) };
      for (let i = 0; step > 0 && i < this.layers; ++i) {
        feeds[`past_key_values.${i}.key`] = past[2 * i];
        feeds[`past_key_values.${i}.value`] = past[2 * i + 1];
      }
      const out = await (step === 0 ? this.first : this.withPast).run(feeds);
      past = [];
      for (let i = 0; i < this.layers; ++i) past.push(out[`present.${i}.key`], out[`present.${i}.value`]);
      const data = out.logits.data;
      if (keepLogits) logits.push(Array.from(data));
      const token = force ? force[step] : argmax(data, step < minLength ? withEos : this.suppress);
      ids.push(token);
      if (step === 0) firstTokenMs = now() - t0;
      if (token === eos && !force) break;
    }
    const decodeMs = now() - t0;
    return { ids, encodeMs: 0, decodeMs, firstTokenMs, laterStepsMs: decodeMs - firstTokenMs, ...(keepLogits ? { logits } : {}) };
  }

  async release() {
    for (const s of [this.first, this.withPast]) await s.release();
  }
}
