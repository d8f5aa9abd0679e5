// attnscope: the JavaScript API over the WebAssembly engine.
//
//   import { loadModel } from 'attnscope';
//   const model = await loadModel('models/toy-en-de.safetensors');
//   const session = model.translate('i can eat apple');
//   session.run();
//   console.log(session.translation);        // "ich konnen apfel essen"
//   session.dispose(); model.dispose();
//
// Works in browsers (streaming instantiation), Web Workers and Node >= 20. Every array this
// module returns is a copy owned by JavaScript: no later call can change or invalidate it.
// Errors from the engine arrive as AttnscopeError (a subclass of Error) with its message.

import { checkFileLength, checkModelFile, modelFileStart } from './model-header.js';

const isNode = typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';

export class AttnscopeError extends Error {
  constructor(message) {
    super(message);
    this.name = 'AttnscopeError';
  }
}

// Text for the engine. Lone UTF-16 surrogates become U+FFFD here: Emscripten's UTF-8 encoder
// would pair a lone high surrogate with whatever code unit follows it (eating a space or a letter).
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
function text(value) {
  return String(value).replace(loneSurrogate, '\uFFFD');
}

// An integer argument for the engine. Embind would silently turn 'x', NaN or 0.5 into 0 and wrap
// 2**40 around to 0, so the wrong step or token would be used without a word.
function int(value, what) {
  if (!Number.isInteger(value)) throw new AttnscopeError(`${what} must be an integer, got ${String(value)}`);
  if (value < -0x80000000 || value > 0x7fffffff) throw new AttnscopeError(`${what} ${value} is out of range`);
  return value;
}

function ints(values, what) {
  return Array.from(values, (v) => int(v, what));
}

// Options as JSON. JSON.stringify would turn NaN and Infinity into null, which the engine reads
// as "not given": say so instead.
function json(options, what) {
  try {
    return JSON.stringify(options, (key, value) => {
      if (typeof value === 'number' && !Number.isFinite(value)) {
        throw new AttnscopeError(`${what} '${key}' must be a finite number, got ${value}`);
      }
      return value;
    });
  } catch (e) {
    throw e instanceof AttnscopeError ? e : new AttnscopeError(`${what} cannot be read: ${e.message}`);
  }
}

// Attribution options ({method, steps, baseline, contrast}) as the engine's arguments; `contrast`
// is a token of `side` (its text, or its id).
function attributionArgs(model, side, { method = 'gradient-input', steps = 32, baseline = 'zero', contrast } = {}) {
  for (const [name, value] of [['method', method], ['baseline', baseline]])
    if (typeof value !== 'string') throw new AttnscopeError(`attribution ${name} must be a string, got ${String(value)}`);
  let token = '';
  if (typeof contrast === 'number') {
    token = model.vocab(side)[int(contrast, 'contrast token id')];
    if (token === undefined) throw new AttnscopeError(`contrast token id ${contrast} is outside the vocabulary`);
  } else if (contrast != null) {
    if (typeof contrast !== 'string' || contrast === '') throw new AttnscopeError(`contrast must be a token or a token id, got ${String(contrast)}`);
    token = contrast;
  }
  return [method, int(steps, 'steps'), baseline, token];
}

function check(result) {
  if (result !== null && typeof result === 'object' && typeof result.error === 'string') {
    throw new AttnscopeError(result.error);
  }
  return result;
}

// ------------------------------------------------------------------------------------- runtime

let runtimePromise = null;

/**
 * Loads the WebAssembly engine once (later calls return the same instance, so every model and
 * widget on a page shares it). Options: `wasmBinary` (bytes), `wasmUrl` (where the .wasm is).
 */
export function init(options = {}) {
  if (!runtimePromise) {
    runtimePromise = instantiate(options).catch((e) => {
      runtimePromise = null;
      throw new AttnscopeError(`could not start the attnscope WebAssembly engine: ${e?.message ?? e}`);
    });
  }
  return runtimePromise;
}

async function instantiate({ wasmBinary, wasmUrl } = {}) {
  const { default: createAttnscope } = await import('./wasm/attnscope-wasm.js');
  const args = {};
  if (wasmBinary) {
    args.wasmBinary = wasmBinary;
  } else if (isNode) {
    // Emscripten 3.1.6 would try fetch() on a file path in Node: hand it the bytes instead.
    const { readFile } = await import('node:fs/promises');
    args.wasmBinary = await readFile(new URL('./wasm/attnscope-wasm.wasm', import.meta.url));
  } else {
    // Beside this module's wasm/ folder, also when a bundler has moved this module and the
    // Emscripten glue into one file elsewhere (web/worker.js of the package, web/build-widget.mjs).
    args.locateFile = (file) => (wasmUrl ? String(wasmUrl) : new URL(`./wasm/${file}`, import.meta.url).href);
  }
  return createAttnscope(args);
}

// Length-bin edges for the engine: undefined or null leave its default (8, 12, 16, 20).
function lengthEdges(bins) {
  if (bins === undefined || bins === null) return null;
  if (!Array.isArray(bins)) throw new AttnscopeError(`bins must be an array of word counts, e.g. [8, 12, 16, 20], got ${String(bins)}`);
  return ints(bins, 'bins edge');
}

function texts(values, what) {
  if (!Array.isArray(values)) throw new AttnscopeError(`${what} must be an array of strings`);
  return values.map(text);
}

/**
 * BLEU by source length of given translations (no model): `sources`, `translations` and
 * `references` are parallel arrays of strings. The sentences are binned by their source's count
 * of white-space separated words; `bins` are the bins' upper edges (default [8, 12, 16, 20]:
 * 1–8, 9–12, 13–16, 17–20, 21+). Returns what Model#bleuByLength returns, without translations.
 */
export async function bleuByLength(sources, translations, references, { bins } = {}) {
  const runtime = await init();
  return check(runtime.bleuByLength(texts(sources, 'sources'), texts(translations, 'translations'),
    texts(references, 'references'), lengthEdges(bins)));
}

/** A corpus seed: a whole number a double holds exactly. */
function seedOf(seed) {
  if (!(Number.isSafeInteger(seed) && seed >= 0)) throw new AttnscopeError(`seed must be a non-negative integer, got ${String(seed)}`);
  return seed;
}

/**
 * Random halves repeated twice, made by the engine from a seed (src/train/repeated_sequences.h):
 * `sequences` sequences of minHalfLength to halfLength (minHalfLength 0: halfLength) symbols drawn
 * uniformly from `symbols` symbols ("s0", "s1", ...) and then the same again, after up to
 * `maxPrefix` unrepeated ones, as pairs [prefix and half, half] (a decoder-only trainer learns
 * <bos> source target </s>), and `probes` fixed probe texts (halfLength distinct symbols, then
 * the same again) for Model#inductionScores. -> {symbols, pairs, probes}.
 */
export async function repeatedSequences({ halfLength = 10, minHalfLength = 0, maxPrefix = 0, symbols = 16, sequences = 256, seed = 1, probes = 4 } = {}) {
  const runtime = await init();
  return check(runtime.repeatedSequences(int(halfLength, 'halfLength'), int(minHalfLength, 'minHalfLength'), int(maxPrefix, 'maxPrefix'), int(symbols, 'symbols'),
    int(sequences, 'sequences'), seedOf(seed), int(probes, 'probes')));
}

/**
 * In-context bigrams, the induction-heads preset's corpus, made by the engine from a seed
 * (src/train/successor_walks.h): `sequences` walks of `length` symbols ("s0", "s1", ...), each on
 * its own random successor map (every next symbol is the map's successor of the one before, or
 * with probability `jump` a uniform one), as pairs [first half, second half] (a decoder-only
 * trainer learns <bos> source target </s>), and `probes` fixed probe texts (probeLength distinct
 * symbols, then the same again) for Model#inductionScores. -> {symbols, pairs, probes}.
 */
export async function successorWalks({ symbols = 24, length = 96, jump = 0.2, sequences = 256, seed = 1, probeLength = 12, probes = 4 } = {}) {
  const runtime = await init();
  // Embind would read null as 0 and '0.3' as 0.3; the engine checks the range.
  if (typeof jump !== 'number') throw new AttnscopeError(`jump must be a number, got ${String(jump)}`);
  return check(runtime.successorWalks(int(symbols, 'symbols'), int(length, 'length'), jump, int(sequences, 'sequences'), seedOf(seed),
    int(probeLength, 'probeLength'), int(probes, 'probes')));
}

/** Bytes currently allocated on the engine's heap (for leak checks). */
export async function heapInUse() {
  return (await init()).heapInUse();
}

// Each Model and Session owns one Embind handle. When one is garbage-collected without
// dispose(), the FinalizationRegistry frees its WASM memory anyway.
const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((handle) => { try { handle.delete(); } catch { /* already freed */ } })
  : null;
const handles = new WeakMap();

function own(object, handle) {
  handles.set(object, handle);
  finalizer?.register(object, handle, object);
}

function handleOf(object, what) {
  const handle = handles.get(object);
  if (!handle) throw new AttnscopeError(`this ${what} has been disposed`);
  return handle;
}

function release(object) {
  const handle = handles.get(object);
  if (!handle) return;
  finalizer?.unregister(object);
  handle.delete();
  handles.delete(object);
}

// -------------------------------------------------------------------------------------- models

async function readSource(source, onProgress, onChunk) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (typeof Response !== 'undefined' && source instanceof Response) return readResponse(source, onProgress, source.url, onChunk);
  const url = String(source);
  if (isNode && !/^(https?|data|blob):/i.test(url)) {
    const { fileURLToPath } = await import('node:url');
    const bytes = await readModelFile(url.startsWith('file:') ? fileURLToPath(url) : url, fileNamed(url)).catch((e) => {
      throw e instanceof AttnscopeError ? e : new AttnscopeError(`cannot read model file '${url}': ${e.message}`);
    });
    onProgress?.({ loaded: bytes.length, total: bytes.length });
    return bytes;
  }
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new AttnscopeError(`cannot fetch model '${url}': ${e.message}`);
  }
  if (!response.ok) throw new AttnscopeError(`cannot fetch model '${url}': HTTP ${response.status}`);
  return readResponse(response, onProgress, url, onChunk);
}

/** A model file as messages name it: by its URL or path when it has one. */
const fileNamed = (name) => `the model file${name ? ` '${name}'` : ''}`;

function joined(chunks, length) {
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const c of chunks) { bytes.set(c, offset); offset += c.length; }
  return bytes;
}

/**
 * A file in Node, its header first: a file that is no model, or whose size is not what its header
 * promises, or too big for the engine, is refused after its first bytes are read (a model padded
 * to 3 GB is not read whole).
 */
async function readModelFile(path, what) {
  const { open } = await import('node:fs/promises');
  const file = await open(path);
  try {
    const { size } = await file.stat();
    let bytes = new Uint8Array(0);
    let start = { need: 8 };
    while (start.need) {
      const want = Math.min(start.need, size);
      if (want <= bytes.length) break; // the file ends first: the engine says it is truncated
      const next = new Uint8Array(want);
      const { bytesRead } = await file.read(next, 0, want, 0);
      bytes = next.subarray(0, bytesRead);
      if (bytesRead < want) break;
      start = apiError(() => modelFileStart(bytes, what));
    }
    if (start.fileBytes === undefined) return bytes; // no model, or cut short: the engine says what is wrong
    apiError(() => checkFileLength(start.fileBytes, size, what, `it is ${size} bytes`));
    const whole = new Uint8Array(size);
    whole.set(bytes);
    const { bytesRead } = await file.read(whole, bytes.length, size - bytes.length, bytes.length);
    return whole.subarray(0, bytes.length + bytesRead);
  } finally {
    await file.close();
  }
}

/** web/model-header.js's refusals, as this API's errors. */
function apiError(check) {
  try {
    return check();
  } catch (e) {
    throw e instanceof AttnscopeError ? e : new AttnscopeError(e.message);
  }
}

/**
 * The body, read as it streams, and judged by its first bytes (web/model-header.js): the header's
 * length as soon as 8 bytes have arrived (a PNG, or 2^63, stops the download there, and the engine
 * says what the bytes are); then, once the header has arrived, a file too big for the engine, a
 * Content-Length beyond the end of the last tensor, and any byte that arrives after it. Each
 * refusal cancels the download: a 3 GB file is refused after its header, not after 3 GB.
 */
async function readResponse(response, onProgress, url, onChunk) {
  const total = Number(response.headers.get('content-length')) || 0;
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const what = fileNamed(url);
  // A compressed response's Content-Length counts compressed bytes: only what arrives is judged.
  const encoding = response.headers.get('content-encoding');
  const announced = !encoding || encoding === 'identity' ? total : 0;
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  let start = { need: 8 };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      loaded += value.length;
      while (start.need && loaded >= start.need) start = modelFileStart(joined(chunks, loaded), what);
      if (start.notModel) {
        reader.cancel().catch(() => {});
        return joined(chunks, loaded); // the engine says what these bytes are
      }
      if (start.fileBytes !== undefined) {
        if (announced) checkFileLength(start.fileBytes, announced, what, `the server announces ${announced} bytes (Content-Length)`);
        checkFileLength(start.fileBytes, loaded, what, `${loaded} bytes have arrived, and the download was stopped`);
      }
      onProgress?.({ loaded, total, url });
      onChunk?.(loaded, total);
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    throw e; // (loadModel makes it an AttnscopeError)
  }
  return joined(chunks, loaded);
}

/**
 * While a model downloads, the engine's heap is readied for its load a step per chunk
 * (`warmHeap`, bindings/heap.h): in the time the thread would wait for the
 * network. A model's load needs about HEAP_PER_FILE_BYTE times its file in heap (the file's
 * bytes, binary32 weights, the decoder's rearranged step weights: 58 MB for a 12.4 MB file).
 */
const HEAP_PER_FILE_BYTE = 4.5;
function warmHeapWhileDownloading(runtime) {
  let warmed = 0;
  return (loaded, total) => {
    const want = HEAP_PER_FILE_BYTE * Math.max(loaded, total ? Math.min(total, 2 * loaded) : loaded);
    if (want - warmed < 1 << 20) return; // a MiB at a time
    runtime.warmHeap?.(want); // (absent from an engine built before it: then nothing is readied)
    warmed = want;
  };
}

/**
 * Loads a model from a URL or path (Node), a Response, an ArrayBuffer or a Uint8Array.
 * `onProgress({loaded, total})` reports download progress in bytes (to cancel a download, fetch
 * it with an AbortSignal and pass the Response). `int8: true` runs the decoder's per-step products on int8 weights: about
 * twice as fast per token, but no longer the file's exact numbers (the encoder stays exact;
 * docs/benchmarks.md, int8 weights). A file whose safetensors header says it cannot fit in the
 * engine's memory is refused before any of it enters the engine, and a download as soon as its
 * header has arrived (web/model-header.js: the size and the limit are in the message). A download
 * or a file (Node) is read no further than its first 8 bytes when they are no safetensors header
 * (the engine says what they are), and no further than the end of its last tensor: more bytes,
 * or a larger Content-Length, are trailing data, refused.
 */
export async function loadModel(source, { onProgress, int8 = false, ...runtimeOptions } = {}) {
  if (typeof int8 !== 'boolean') throw new AttnscopeError(`int8 must be true or false, got ${JSON.stringify(int8)}`);
  const runtime = await init(runtimeOptions);
  let bytes;
  let header;
  try {
    bytes = await readSource(source, onProgress, warmHeapWhileDownloading(runtime));
    // (a Response's URL names it; bytes have no name)
    header = checkModelFile(bytes, fileNamed(typeof source === 'string' ? source : source.url));
  } catch (e) {
    throw e instanceof AttnscopeError ? e : new AttnscopeError(e.message); // web/model-header.js's refusals
  }
  const handle = new runtime.ModelHandle();
  try {
    check(handle.load(bytes, int8));
  } catch (e) {
    handle.delete();
    throw e;
  }
  return new Model(runtime, handle, Object.freeze({ bytes: bytes.length, parameters: header?.parameters }));
}

export class Model {
  #runtime;
  #info;
  #vocab = {};

  constructor(runtime, handle, file) {
    this.#runtime = runtime;
    own(this, handle);
    const info = check(handle.info());
    this.#info = Object.freeze({
      name: info.name,
      description: info.description,
      // The file's optional licence and source (its __metadata__, models/FORMAT.md); '' when absent.
      license: info.license,
      source: info.source,
      // The file's size in bytes and its tensors' elements (its safetensors header); undefined for a model trained here.
      file,
      // The file's generation defaults ({strategy, beam_size, max_length, length_penalty, alpha}), when it has them.
      generation: info.generation,
      config: JSON.parse(info.config),
      tokenizer: JSON.parse(info.tokenizer),
      tgtTokenizer: JSON.parse(info.tgtTokenizer),
      srcVocabSize: info.srcVocabSize,
      tgtVocabSize: info.tgtVocabSize,
      int8: info.int8,
      architecture: info.architecture,
      // false for an encoder-only model (BERT): translate() throws, encode() / fillMask() apply.
      hasDecoder: info.hasDecoder,
      // false for a decoder-only model (GPT): no encoder and no cross-attention; its text is a prompt.
      hasEncoder: info.hasEncoder,
      // What translate() starts from: 'source' (an encoder-decoder translates it), 'prompt' (a
      // decoder-only model continues it: the prompt opens its own context), 'text' (encoder-only:
      // encode() / fillMask() read it).
      input: info.input,
      // The decoder layers session.logitLens() reads out; 0 where the model has no lens (an RNN, an encoder-only model).
      logitLensLayers: info.logitLensLayers,
      // The model's attention sites, from its family's table: everything that shows attention
      // iterates over this list rather than naming sites.
      sites: Object.freeze(info.sites.map((site) => Object.freeze(site))),
      // The model-wide interventions its family refuses, by option name ('lastSourceState', a skip, ...).
      refusedInterventions: Object.freeze([...info.refusedInterventions]),
    });
  }

  #live() { return handleOf(this, 'model'); }

  /**
   * Name, description, config (dims, layers, heads, ...), tokenizer, vocabulary sizes, and
   * `sites`: the attention sites in table order, [{name, label, queries, keys, layers, heads, perStep, skip, customWeights, copiedBySourceEncoding}]
   *   (what interventions may do to each site, from the engine's table).
   */
  get info() { return this.#info; }
  get config() { return this.#info.config; }

  /** The vocabulary of one side as an array of token strings (index = id). */
  vocab(side = 'target') {
    const target = side === 'target';
    if (!target && side !== 'source') throw new AttnscopeError(`side must be 'source' or 'target', got '${side}'`);
    this.#vocab[side] ??= Object.freeze(check(this.#live().vocab(target)));
    return this.#vocab[side];
  }

  /** The id of a token string, or -1. */
  tokenId(token, side = 'target') { return this.vocab(side).indexOf(token); }

  /** How the model cuts `text`: {pieces, ids, unknown}. */
  tokenize(input, { side = 'source' } = {}) {
    if (side !== 'source' && side !== 'target') throw new AttnscopeError(`side must be 'source' or 'target', got '${side}'`);
    return check(this.#live().tokenize(text(input), side === 'target'));
  }

  /**
   * Encoder-only models (architecture 'bert'): encodes `text`, a sentence or a pair written
   * 'text A [SEP] text B', as "[CLS] pieces [SEP]". Returns {tokens, ids, segments, unknown,
   * attention: {<site>: {shape: [layers, heads, T, T], data}}, hidden: {shape: [T, d], data}} and,
   * with `vectors: true`, `vectors`: {name: {shape, data}} ('layers.<l>.q', ...k, ...v,
   * ...transformed_values [heads * T, d]: head h's value vector of token j after the output
   * projection, row h*T + j (Kobayashi et al. 2020), ...output, 'embedding_sum', 'pooled', ...).
   */
  encode(input, { vectors = false, interventions = {} } = {}) {
    if (typeof vectors !== 'boolean') throw new AttnscopeError(`vectors must be true or false, got ${vectors}`);
    return check(this.#live().encodeText(text(input), vectors, json(interventions, 'intervention option')));
  }

  /**
   * Encoder-only models: the `topK` best pieces for every [MASK] of `text`, left to right:
   * what encode() returns, plus masks: [{position, topK: [{id, token, prob, logit}]}].
   * A text without [MASK] is an error.
   */
  fillMask(input, { topK = 5, interventions = {} } = {}) {
    return check(this.#live().fillMask(text(input), int(topK, 'topK'), json(interventions, 'intervention option')));
  }

  /**
   * Encoder-only models: the head study of `text` (src/analysis/encoder_study.h). Returns
   * {tokens, patterns, shares, attention}: patterns[layer][head] is Kovaleva et al.'s class
   * ('vertical' | 'diagonal' | 'vertical+diagonal' | 'block' | 'heterogeneous');
   * shares.raw[layer] and shares.norm[layer] are {cls, sep, punct, prev, next}: the share of
   * attention on [CLS], on [SEP], on punctuation pieces, on the previous and on the next token,
   * mean over heads and query rows, from the weights alpha (raw) and from alpha·‖f(x)‖ renormalised
   * per row (norm-weighted, Kobayashi et al. 2020); shares.rawHeads / normHeads[layer][head] the
   * same per head; attention the self-attention [layers, heads, T, T] it was computed from.
   */
  headStudy(input, { interventions = {} } = {}) {
    return check(this.#live().headStudy(text(input), json(interventions, 'intervention option')));
  }

  /**
   * Encoder-only models: the analyses of `text`'s encoding (src/analysis/encoding_analysis.h),
   * with the model broken as `interventions` say. Returns {tokens, site, rollout: {shape: [T, T],
   * data}, patterns: [layer * heads + head] (Kovaleva et al.'s classes of `site`, the
   * self-attention over the input), attention: {<site>: [layers, heads, T, T]}, valueWeighted:
   * {<site>: ‖α·f(x)‖, same shape}}.
   */
  textAnalysis(input, { interventions = {} } = {}) {
    return check(this.#live().textAnalysis(text(input), json(interventions, 'intervention option')));
  }

  /**
   * Encoder-only models: one head's scores before the softmax, q·kᵀ/sqrt(d_head), for position
   * `query` of `text` (site: a name from info.sites), and the attention row after it:
   * {logits: Float32Array [T], weights: Float32Array [T]}.
   */
  textAttentionLogits(input, { site, layer = 0, head = 0, query = 0, interventions = {} } = {}) {
    const info = siteOf(this, site);
    return check(this.#live().textAttentionLogits(text(input), json(interventions, 'intervention option'), info.name,
      int(layer, 'layer'), int(head, 'head'), int(query, 'query')));
  }

  /**
   * Encoder-only models: masked-token accuracy on `sentences` (an array of texts): every
   * non-special piece replaced by [MASK] in turn, correct when the top-1 piece is the original;
   * then the same with each head switched off. Returns {baseAccuracy, positions, baseCorrect,
   * sentences, correct[layer][head], delta[layer][head]} (delta = accuracy with the head off −
   * baseAccuracy). Runs synchronously (one forward pass per masked piece and head): call it in a
   * Web Worker. onProgress(done, total) after each head.
   */
  headAblation(sentences, { onProgress } = {}) {
    if (!Array.isArray(sentences)) throw new AttnscopeError('headAblation needs an array of sentences');
    if (onProgress !== undefined && typeof onProgress !== 'function') throw new AttnscopeError('onProgress must be a function');
    return check(this.#live().headAblation(sentences.map(text), onProgress ?? null));
  }

  /** Teacher-forced log-probability of `target` as the translation of `source`. */
  score(source, target, { interventions = {} } = {}) {
    return check(this.#live().score(text(source), text(target), json(interventions, 'intervention option')));
  }

  /**
   * Head importance: masks each head alone and reports the change in the references'
   * log-likelihood per token (negative = the head helps). `pairs` is [[source, reference], ...].
   * With `bleu: true` it also decodes every source greedily per masked head and reports the
   * change in corpus BLEU (13a, as sacreBLEU): baseBleu and each head's deltaBleu.
   * `heads: {first, count}`: only those heads of the sweep's order (sites in table order × layer ×
   * head), for a pool of workers that shares one sweep (web/app/worker/sweep-pool.js); the baseline is the
   * same in every part, so the parts' heads put end to end are the whole sweep's.
   * Runs synchronously: call it in a Web Worker for big models.
   */
  headImportance(pairs, { onProgress, bleu = false, heads: { first = 0, count = -1 } = {} } = {}) {
    if (!Array.isArray(pairs)) throw new AttnscopeError('headImportance needs an array of [source, reference] pairs');
    if (typeof bleu !== 'boolean') throw new AttnscopeError(`bleu must be true or false, got ${bleu}`);
    return check(this.#live().headSweep(pairs.map((p) => text(p[0])), pairs.map((p) => text(p[1])), bleu,
      int(first, 'heads.first'), int(count, 'heads.count'), onProgress ?? null));
  }

  /**
   * BLEU by source length (Bahdanau et al. 2015, figure 2): translates the source of every pair
   * of `pairs` ([[source, reference], ...]) with the decoding options of translate() (`capture`
   * and `prefix` do not apply) and scores the translations with corpus BLEU (13a, mixed case, as
   * sacreBLEU) per bin of source length in white-space separated words. `bins`: the bins' upper
   * edges (default [8, 12, 16, 20]: 1–8, 9–12, 13–16, 17–20, 21+). Returns {edges, bins:
   * [{minWords, maxWords (null: no upper bound), sentences, bleu (null when the bin is empty),
   * precisions, brevityPenalty, hypLen, refLen}], total: {sentences, bleu, precisions,
   * brevityPenalty, hypLen, refLen}, translations}. onProgress(done, total) after each sentence.
   * Runs synchronously: call it in a Web Worker.
   */
  bleuByLength(pairs, { bins, onProgress, capture, prefix, ...options } = {}) {
    if (!Array.isArray(pairs)) throw new AttnscopeError('bleuByLength needs an array of [source, reference] pairs');
    if (prefix !== undefined) throw new AttnscopeError('prefix is not an option of bleuByLength (it would start every translation)');
    if (onProgress !== undefined && typeof onProgress !== 'function') throw new AttnscopeError('onProgress must be a function');
    const bad = pairs.findIndex((p) => !Array.isArray(p) || p.length < 2);
    if (bad >= 0) throw new AttnscopeError(`pair ${bad + 1} is not a [source, reference] array`);
    return check(this.#live().bleuByLength(pairs.map((p) => text(p[0])), pairs.map((p) => text(p[1])),
      json(options, 'decoding option'), lengthEdges(bins), onProgress ?? null));
  }

  /** The token embeddings of one side projected on their first two principal components: {shape: [V, 2], data}. */
  embeddingPca(side = 'source') {
    if (side !== 'source' && side !== 'target') throw new AttnscopeError(`side must be 'source' or 'target', got '${side}'`);
    return check(this.#live().embeddingPca(side === 'target'));
  }

  /** The positional encodings the encoder adds: {shape: [max_positions, d_model], data}. */
  positionalEncoding() { return check(this.#live().positionalEncoding()); }

  /**
   * Induction heads (Olsson et al. 2022) of a language model (src/analysis/induction.h), on
   * `probes` (texts whose second half repeats the first, e.g. repeatedSequences().probes):
   * {layers, heads, prefixMatching [layer][head] (the mean attention from a repeated token to
   * the token after its earlier occurrence), previousToken [layer][head] (the mean attention from
   * a token to the one before it), copying [layer][head] (Σ Re λ / Σ |λ| of the head's
   * OV circuit over `symbols`, in [-1, 1]), lossFirstHalf, lossRepeatedHalf (nats per token),
   * tokens (the first probe's context, <bos> first), attention {shape [layers, heads, T, T], data}
   * (the first probe's)}.
   */
  inductionScores(probes, symbols) {
    return check(this.#live().inductionScores(texts(probes, 'probes'), texts(symbols, 'symbols')));
  }

  /**
   * Encoder-only models: what drove the best piece of every [MASK] of `text` (see
   * Session#attribution for the options and the result), one result per [MASK], left to right;
   * `step` is the [MASK]'s position and the scores cover the input (sourceTokens).
   */
  maskAttribution(input, options = {}) {
    return check(this.#live().maskAttribution(text(input), ...attributionArgs(this, 'source', options)));
  }

  /** cos(source embedding, target embedding) for token ids: {shape: [srcIds.length, tgtIds.length], data}. */
  embeddingCosine(srcIds, tgtIds) {
    return check(this.#live().embeddingCosine(ints(srcIds, 'token id'), ints(tgtIds, 'token id')));
  }

  /**
   * Starts decoding `text`; returns a Session that has encoded the source and is at step 0.
   * Options: strategy ('greedy' | 'beam' | 'sample'), beamSize, nbest, lengthPenalty
   * ('none' | 'average' | 'gnmt'), alpha, maxLength, maxLengthA, maxLengthB, minLength,
   * noRepeatNgram (n: no token may complete an n-gram the translation already has; 0 = off),
   * repetitionPenalty (θ: a generated token's logit x becomes x / θ if x > 0, else x · θ; 1 = off),
   * temperature, topK, topP, seed, prefix (ids or text), alternatives,
   * capture: {attention = true, logits = true, vectors = false}.
   */
  translate(sentence, options = {}) {
    const { prefix, capture, ...rest } = options ?? {};
    const opts = { ...rest, capture: { attention: true, logits: true, ...capture } };
    if (typeof prefix === 'string') {
      const t = this.tokenize(prefix, { side: 'target' });
      if (t.unknown.length) throw new AttnscopeError(`prefix has words the target vocabulary lacks: ${t.unknown.join(', ')}`);
      opts.prefix = t.ids;
    } else if (prefix !== undefined) {
      opts.prefix = ints(prefix, 'prefix token id');
    }
    const handle = new this.#runtime.SessionHandle();
    let state;
    try {
      state = check(handle.start(this.#live(), text(sentence), json(opts, 'decoding option')));
    } catch (e) {
      handle.delete();
      throw e;
    }
    return new Session(this, handle, state);
  }

  /**
   * A decoder-only model (info.input === 'prompt'): continues `prompt`, the same as translate().
   * The first step runs the causal stack over <bos> and the prompt at once: its attention holds
   * a row for each of those positions, [layers, heads, 1 + prompt, 1 + prompt]; each later step
   * adds one row over the whole context.
   */
  generate(prompt, options = {}) { return this.translate(prompt, options); }

  /** Frees the model's WASM memory (sessions still running keep what they need). */
  dispose() { release(this); }

  [Symbol.dispose]() { this.dispose(); }
}

// ------------------------------------------------------------------------------------ sessions

function pickHead(tensor, layer, head, what) {
  const [layers, heads] = tensor.shape;
  if (layer === undefined && head === undefined) return tensor;
  if (!Number.isInteger(layer) || layer < 0 || layer >= layers) {
    throw new AttnscopeError(`${what}: layer ${layer} is out of range [0, ${layers})`);
  }
  if (!Number.isInteger(head) || head < 0 || head >= heads) {
    throw new AttnscopeError(`${what}: head ${head} is out of range [0, ${heads})`);
  }
  const size = tensor.shape.slice(2).reduce((a, b) => a * b, 1);
  const offset = (layer * heads + head) * size;
  return { shape: tensor.shape.slice(2), data: tensor.data.slice(offset, offset + size) };
}

// The site called `name` in the model's table, or an AttnscopeError listing the table's names.
function siteOf(model, name) {
  const sites = model.info.sites;
  const site = sites.find((s) => s.name === name);
  if (!site) {
    throw new AttnscopeError(`unknown attention site '${String(name)}' (this model has ${sites.map((s) => s.name).join(', ')})`);
  }
  return site;
}

export class Session {
  #model;
  #status;  // the engine's state after the last call that changed it; getters read only this
  #source;

  constructor(model, handle, state) {
    this.#model = model;
    own(this, handle);
    this.#status = state;
  }

  #live() { return handleOf(this, 'session'); }

  get model() { return this.#model; }
  #state() { handleOf(this, 'session'); return this.#status; }

  // Calls the engine for something that changes the session. A failed call may still have
  // moved it (run() can stop half-way): then, and only then, the state is asked for again.
  #change(call) {
    const handle = this.#live();
    try {
      return check(call(handle));
    } catch (e) {
      if (e instanceof AttnscopeError) this.#status = check(handle.state());
      throw e;
    }
  }

  // A step record carries the state after it: keep that, hand the record on.
  #stepped(record) {
    this.#status = record.state;
    return record;
  }

  /**
   * Generates the next token of every live hypothesis; returns what the step computed: for
   * each hypothesis extended, its top alternatives and (capture.attention) its attention per
   * per-step site, `expansions[i].attention[site] = {shape, data}`; and `state`, the session
   * after the step (as state() gives it).
   */
  step() { return this.#stepped(this.#change((h) => h.step())); }

  /** Steps until the end. */
  run() { this.#status = this.#change((h) => h.run()); return this; }

  /** Undoes the last step (cheap: the caches are truncated, nothing is recomputed). */
  back() { this.#status = this.#change((h) => h.back()); return this; }

  /**
   * {done, hitMaxLength, steps, maxLength, live, finished, nbest}: what the last step, force,
   * back or run returned (no call into the engine).
   */
  state() { return this.#state(); }

  /** Chooses the next token (id or token string) of one live hypothesis, then goes on from it. */
  force(token, hypothesis = 0) {
    const id = typeof token === 'string' ? this.#model.tokenId(token) : token;
    if (typeof token === 'string' && id < 0) throw new AttnscopeError(`'${token}' is not in the target vocabulary`);
    if (!Number.isInteger(id)) throw new AttnscopeError(`token must be an integer id or a token string, got ${token}`);
    const tokenId = int(id, 'token id');
    const which = int(hypothesis, 'hypothesis');
    return this.#stepped(this.#change((h) => h.force(tokenId, which)));
  }

  get done() { return this.#state().done; }
  get hitMaxLength() { return this.#state().hitMaxLength; }
  /** Number of steps taken so far. */
  get steps() { return this.#state().steps; }
  get maxLength() { return this.#state().maxLength; }
  /** The live hypotheses: [{ids, tokens, text, score, node}]. */
  hypotheses() { return this.#state().live; }
  /** Hypotheses that ended (by </s>, or cut at maxLength with finished = false), in order. */
  finished() { return this.#state().finished; }
  /** The best finished hypotheses, best first (at most `nbest`). */
  nbest() { return this.#state().nbest; }
  /** The best finished translation's text, or '' while none has finished. */
  get translation() { return this.nbest()[0]?.text ?? ''; }
  /** The source as the encoder saw it: {pieces, ids, unknown}. */
  get source() {
    this.#source ??= check(this.#live().source());
    return this.#source;
  }

  /** Step `step`: for each hypothesis extended, its prefix, score and top alternatives. */
  history(step) { return check(this.#live().history(int(step, 'step'))); }

  /**
   * The attention of one site (a name from model.info.sites). A per-step site: at `step`, for
   * the hypothesis extended as `hypothesis`, {shape: [layers, heads, keys], data} (one head:
   * [keys]). A once-per-source site (perStep false): `step` is ignored, the shape is
   * [layers, heads, queries, keys] (one head: [queries, keys]).
   */
  attention(site, step, { layer, head, hypothesis = 0 } = {}) {
    const info = siteOf(this.#model, site);
    const at = info.perStep ? int(step, 'step') : 0;
    return pickHead(check(this.#live().attention(info.name, at, int(hypothesis, 'hypothesis'))), layer, head,
      `${info.name} attention`);
  }

  /** Thin wrapper: attention('encoder', 0, select), the encoder's self-attention [layers, heads, src, src]. */
  encoderAttention(select = {}) { return this.attention('encoder', 0, select); }

  /** Thin wrapper: attention('cross', step, select), a step's cross-attention [layers, heads, src]. */
  crossAttention(step, select = {}) { return this.attention('cross', step, select); }

  /** Thin wrapper: attention('self', step, select), a step's decoder self-attention [layers, heads, step + 1]. */
  selfAttention(step, select = {}) { return this.attention('self', step, select); }

  /** The logits (or log-probabilities) over the target vocabulary at a step. */
  logits(step, { hypothesis = 0, logProbs = false } = {}) {
    return check(this.#live().logits(int(step, 'step'), int(hypothesis, 'hypothesis'), Boolean(logProbs)));
  }

  /** Attention rollout through the encoder (Abnar & Zuidema 2020): {shape: [src, src], data}. */
  rollout() { return check(this.#live().rollout()); }

  /**
   * ‖α·f(x)‖ (Kobayashi et al. 2020) instead of the raw weights, same shapes as the attention
   * getters. kind: a site name from model.info.sites. Needs capture.vectors.
   */
  valueWeightedAttention(kind, step = 0, { hypothesis = 0, layer, head } = {}) {
    return pickHead(check(this.#live().valueWeighted(String(kind), int(step, 'step'), int(hypothesis, 'hypothesis'))), layer,
      head, 'value-weighted attention');
  }

  /**
   * One head's scores for one query before the softmax, q·kᵀ/sqrt(d_head) (the "factor" row).
   * kind: a site name from model.info.sites. For a once-per-source site `query` is a source
   * position; for a per-step site the query is the position generated at `step` by
   * `hypothesis`. Needs capture.vectors.
   */
  attentionLogits(kind, { layer = 0, head = 0, query = 0, step = 0, hypothesis = 0 } = {}) {
    return check(this.#live().attentionLogits(String(kind), int(layer, 'layer'), int(head, 'head'), int(query, 'query'),
      int(step, 'step'), int(hypothesis, 'hypothesis')));
  }

  /** The pattern class (Kovaleva et al. 2019) of every encoder head, [layer * heads + head]. */
  encoderPatterns() { return check(this.#live().encoderPatterns()); }

  /**
   * Decoder-only models, after the first step: the rollout (Abnar & Zuidema 2020) through the
   * causal self-attention the first step computed over <bos> and the prompt, {shape: [1 + P,
   * 1 + P], data}, and the pattern class of every head on that map, [layer * heads + head].
   */
  promptRollout() { return check(this.#live().promptRollout()); }
  promptPatterns() { return check(this.#live().promptPatterns()); }

  /**
   * The logit lens (nostalgebraist 2020) along the leading hypothesis: per step taken and per
   * decoder layer, what the readout (final norm, output projection) makes of that layer's
   * residual stream: the top-k tokens and the probability and rank (1: the most probable) of the
   * token chosen at that step. The last layer is the step's own prediction. Throws for a model
   * without a lens (model.info.logitLensLayers is 0). ids: the path to read instead (target ids,
   * one per step taken so far, e.g. a hypothesis' prefix).
   * -> {layers, steps: [{id, token, layers: [{top: [{id, piece, p}], chosen: {p, rank}}]}]}
   */
  logitLens(k = 5, { ids } = {}) {
    return check(this.#live().logitLens(int(k, 'k'), ids == null ? null : ints(ids, 'token id')));
  }

  /**
   * What drove the prediction of `step` for the hypothesis extended there as `hypothesis` (by
   * default the token the session chose there; `token`: another id), from the model's gradients
   * (src/analysis/attribution.h). method: 'gradient-input' (default), 'integrated-gradients'
   * (`steps` points of the midpoint rule, default 32; `baseline` 'zero' or 'pad') or 'erasure';
   * `contrast`: a token (text or id) to explain log p(token) − log p(contrast) instead.
   * -> {step, token, tokenId, contrast?, sourceTokens, sourceScores (Float32Array), targetTokens
   * (<bos> first), targetScores, f, sum, and for integrated gradients fBaseline, completenessError
   * (|sum − (f − fBaseline)|), completenessShare (that error over |f − fBaseline|) and
   * suggestedSteps (0 when the share is within 5%, else the steps that would bring it within, at
   * most the cap; the steps used when they are the cap already), agreement?: {site, layers, heads,
   * tau (Float64Array [layer * heads + head], NaN where
   * undefined)}: Kendall's τ-b between each head's attention row and |score| (translation: the
   * cross-attention over the source; decoder-only: the self-attention over the context)}.
   * The model's file is read again into a gradient pass on the first call. Integrated gradients
   * take at most the steps whose work fits the engine's budget for this model and input (see
   * attributionCost); more throws, naming that cap.
   */
  attribution(step, { hypothesis = 0, token, ...options } = {}) {
    return check(this.#live().attribution(handleOf(this.#model, 'model'), int(step, 'step'), int(hypothesis, 'hypothesis'),
      token == null ? -1 : int(token, 'token'), ...attributionArgs(this.#model, 'target', options)));
  }

  /**
   * attribution() of every step of the path to the hypothesis extended as `hypothesis` at step
   * `last` (default: the session's last step, hypothesis 0: greedy, the sentence so far), and τ per
   * head averaged over those steps: {steps: [...], meanAgreement?: {site, layers, heads, tau}}.
   */
  sentenceAttribution({ last = -1, hypothesis = 0, ...options } = {}) {
    return check(this.#live().sentenceAttribution(handleOf(this.#model, 'model'), int(last, 'last'), int(hypothesis, 'hypothesis'),
      ...attributionArgs(this.#model, 'target', options)));
  }

  /**
   * What attribution(step, options) would cost, counted before anything runs
   * (src/analysis/attribution_cost.h): {work (multiply-adds, about), passes (forwards, with
   * their backwards for the gradient methods), maxSteps (the most integrated-gradients steps
   * this input allows)}. Work times a measured speed says how long the call will take.
   */
  attributionCost(step, { hypothesis = 0, token, ...options } = {}) {
    return check(this.#live().attributionCost(handleOf(this.#model, 'model'), int(step, 'step'), int(hypothesis, 'hypothesis'),
      ...attributionArgs(this.#model, 'target', options)));
  }

  /** The same for sentenceAttribution(options): the sum over its steps; maxSteps that of its longest input. */
  sentenceAttributionCost({ last = -1, hypothesis = 0, ...options } = {}) {
    return check(this.#live().sentenceAttributionCost(handleOf(this.#model, 'model'), int(last, 'last'), int(hypothesis, 'hypothesis'),
      ...attributionArgs(this.#model, 'target', options)));
  }

  /** Every candidate the search looked at: [{id, parent, step, tokenId, token, logProb, score, status}]. */
  beamTree() { return check(this.#live().tree()); }

  /** Text of target ids, specials removed. */
  detokenize(ids) { return check(this.#live().detokenize(ints(ids, 'token id'))); }

  /** Frees the session's WASM memory. */
  dispose() { release(this); }

  [Symbol.dispose]() { this.dispose(); }
}

// ------------------------------------------------------------------------------------ training

/**
 * Sizes a model trained in the page may have. Training runs on the page's (or worker's) one
 * thread and every epoch also decodes every pair, so larger models make the page unresponsive
 * for seconds per epoch and can exhaust a tab's WebAssembly memory; the native CLI
 * (`attnscope-cli train`) has no such limits.
 */
export const TRAIN_LIMITS = Object.freeze({
  layers: Object.freeze([1, 4]),
  heads: Object.freeze([1, 8]),
  dModel: Object.freeze([4, 256]),
  dFf: Object.freeze([0, 1024]),      // 0: a transformer's 2·dModel; a decoder-only model's attention-only layers
  dEmbed: Object.freeze([1, 256]),     // RNN
  dHidden: Object.freeze([1, 256]),    // RNN
  dEncoder: Object.freeze([0, 256]),   // RNN (0: dHidden / directions)
  dAttention: Object.freeze([0, 256]), // RNN additive score (0: dHidden)
  localWindow: Object.freeze([0, 16]), // RNN Luong local-p (0: global)
  batchTokens: Object.freeze([1, 4096]),
  pairs: 5000,          // sentence pairs
  pairLength: 500,      // characters per side
});

function inRange(value, [low, high], what, why = '') {
  if (!Number.isInteger(value) || value < low || value > high) {
    throw new AttnscopeError(`${what} must be an integer in [${low}, ${high}]${why}, got ${String(value)}`);
  }
  return value;
}

// The pairs as {sources, targets}: a CSV text ("source,target" per line, as the CLI's --pairs),
// an array of such lines, or an array of [source, target].
function pairsOf(runtime, pairs) {
  let lines = null;
  if (typeof pairs === 'string') lines = pairs;
  else if (Array.isArray(pairs) && pairs.every((p) => typeof p === 'string')) lines = pairs.join('\n');
  let sources;
  let targets;
  if (lines !== null) {
    // The engine reads the lines one at a time and stops at the first that breaks a limit
    // (src/train/corpus.h, the same as attnscope-cli train's), here at TRAIN_LIMITS.pairs pairs.
    ({ sources, targets } = check(runtime.parsePairs(text(lines), TRAIN_LIMITS.pairs)));
  } else {
    if (!Array.isArray(pairs)) throw new AttnscopeError('pairs must be a CSV text, an array of "source,target" lines or an array of [source, target]');
    sources = [];
    targets = [];
    pairs.forEach((p, i) => {
      if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'string' || typeof p[1] !== 'string') {
        throw new AttnscopeError(`pair ${i + 1} must be [source, target] (two strings) or a "source,target" line`);
      }
      sources.push(text(p[0]));
      targets.push(text(p[1]));
    });
  }
  if (sources.length === 0) throw new AttnscopeError('no sentence pairs given');
  if (sources.length > TRAIN_LIMITS.pairs) {
    throw new AttnscopeError(`${sources.length} pairs are more than the ${TRAIN_LIMITS.pairs} a browser trains on (use attnscope-cli train)`);
  }
  sources.forEach((s, i) => {
    for (const [side, value] of [['source', s], ['target', targets[i]]]) {
      if (!value.trim()) throw new AttnscopeError(`pair ${i + 1} has an empty ${side}`);
      if (value.length > TRAIN_LIMITS.pairLength) {
        throw new AttnscopeError(`pair ${i + 1}'s ${side} is longer than ${TRAIN_LIMITS.pairLength} characters`);
      }
    }
  });
  return { sources, targets };
}

const browserSafe = ' (a browser-safe size; attnscope-cli train has no limit)';

function trainOptionsOf(options, resuming) {
  if (options === null || typeof options !== 'object') throw new AttnscopeError('training options must be an object');
  const o = { ...options };
  const architecture = ['family', 'layers', 'heads', 'dModel', 'dFf', 'cell', 'attention', 'score', 'dEmbed', 'dHidden',
    'dEncoder', 'dAttention', 'bidirectional', 'inputFeeding', 'localWindow'].filter((k) => o[k] !== undefined);
  if (resuming && architecture.length) {
    throw new AttnscopeError(`${architecture.join(', ')} come from the model being continued: leave them out`);
  }
  for (const k of ['layers', 'heads', 'dModel', 'dFf', 'dEmbed', 'dHidden', 'dEncoder', 'dAttention', 'localWindow']) {
    if (o[k] !== undefined) inRange(o[k], TRAIN_LIMITS[k], k, browserSafe);
  }
  if (o.batchTokens !== undefined) inRange(o.batchTokens, TRAIN_LIMITS.batchTokens, 'batchTokens');
  // The family, names and the rest of an RNN's architecture are checked by the engine.
  if (!resuming && o.family !== 'rnn' && (o.dModel ?? 64) % (o.heads ?? 1) !== 0) {
    throw new AttnscopeError(`dModel ${o.dModel ?? 64} must be divisible by heads ${o.heads ?? 1}`);
  }
  if (o.seed !== undefined && !(Number.isSafeInteger(o.seed) && o.seed >= 0)) {
    throw new AttnscopeError(`seed must be a non-negative integer, got ${String(o.seed)}`);
  }
  if (o.lr !== undefined && !(typeof o.lr === 'number' && o.lr > 0 && o.lr <= 1)) {
    throw new AttnscopeError(`lr must be a number in (0, 1], got ${String(o.lr)}`);
  }
  return json(o, 'training option');  // the engine rejects unknown names and wrong types
}

/**
 * A trainer for a transformer or an RNN on sentence pairs, in the engine (the same code as
 * `attnscope-cli train`). `pairs`: a CSV text ("source,target" per line), an array of such
 * lines or an array of [source, target]. Options: layers, heads, dModel, dFf (a fresh
 * word-level model, vocabularies built from the pairs; limited to TRAIN_LIMITS), or
 * family: 'rnn' with cell, attention, score, layers, dEmbed, dHidden, dEncoder, dAttention,
 * bidirectional, inputFeeding, localWindow (src/train/trainer.h RnnArchitecture), seed, lr,
 * batchTokens, labelSmoothing, dropout, clipNorm, warmup (0: constant lr), countExact (false: no
 * exact-match count after each epoch, `exact` null); or `from` (a model
 * file's bytes, a URL or a Response) to continue training that model.
 */
export async function createTrainer(pairs, { from, ...options } = {}) {
  const runtime = await init();
  const { sources, targets } = pairsOf(runtime, pairs);
  const optionsJson = trainOptionsOf(options, from !== undefined);
  const bytes = from === undefined ? null : await readSource(from);
  const handle = new runtime.TrainerHandle();
  try {
    check(bytes ? handle.resume(bytes, sources, targets, optionsJson) : handle.create(sources, targets, optionsJson));
  } catch (e) {
    handle.delete();
    throw e;
  }
  return new Trainer(runtime, handle);
}

export class Trainer {
  #runtime;
  #model = null;     // the weights after the last epoch, loaded (owned here)
  #stopping = false;
  #training = false;

  constructor(runtime, handle) {
    this.#runtime = runtime;
    own(this, handle);
  }

  #live() { return handleOf(this, 'trainer'); }

  /** Epochs trained so far. */
  get epochs() { return check(this.#live().epochsDone()); }

  /**
   * The model after the last epoch (null before the first), usable by every view. The trainer
   * owns it: it is disposed when the next epoch ends or the trainer is disposed. To keep one,
   * load `exportBytes()`.
   */
  get model() { this.#live(); return this.#model; }

  /** Whether train() is running. */
  get training() { return this.#training; }

  /**
   * One epoch, now: {epoch, loss, exact, total, seconds, updates, model}. `loss` is the mean per
   * target token, `exact` the pairs whose greedy translation equals the target (null with
   * countExact: false), `seconds` the time
   * of the training pass (without the exact count), `updates` the optimiser steps so far, `model`
   * as trainer.model.
   */
  runEpoch() {
    const handle = this.#live();
    const modelHandle = new this.#runtime.ModelHandle();
    let report;
    try {
      report = check(handle.epoch(modelHandle));
    } catch (e) {
      modelHandle.delete();
      throw e;
    }
    this.#model?.dispose();
    this.#model = new Model(this.#runtime, modelHandle);
    return { ...report, model: this.#model };
  }

  /**
   * Trains `epochs` more epochs, one at a time, yielding to the event loop after each (the page
   * stays responsive). onEpoch(report) gets each epoch's runEpoch() report (it may be async: it
   * is awaited). Stops early when `signal` (an AbortSignal) aborts or stop() is called; both are
   * checked between epochs. Calling train() again continues where it stopped (a pause).
   * Resolves to {epochs: the epochs run by this call, stopped, last: the last report or null}.
   */
  async train({ epochs = 1, onEpoch, signal } = {}) {
    this.#live();
    inRange(epochs, [0, 1_000_000], 'epochs');
    if (onEpoch !== undefined && typeof onEpoch !== 'function') throw new AttnscopeError('onEpoch must be a function');
    if (this.#training) throw new AttnscopeError('this trainer is already training (stop() it first)');
    this.#training = true;
    this.#stopping = false;
    let last = null;
    let done = 0;
    try {
      while (done < epochs && !this.#stopping && !signal?.aborted) {
        last = this.runEpoch();
        done += 1;
        await onEpoch?.(last);
        await new Promise((resolve) => setTimeout(resolve));
      }
      return { epochs: done, stopped: done < epochs, last };
    } finally {
      this.#training = false;
    }
  }

  /**
   * The pairs the next epochs train on, in createTrainer's forms (a corpus drawn afresh each
   * epoch, e.g. successorWalks with another seed, is not memorised); the model and the
   * optimiser carry on. Words the model's vocabulary lacks are read as <unk>.
   */
  setPairs(pairs) {
    const { sources, targets } = pairsOf(this.#runtime, pairs);
    check(this.#live().setPairs(sources, targets));
  }

  /** Asks train() to stop after the epoch it is running (a pause: train() again continues). */
  stop() { this.#stopping = true; }

  /** The current weights as a .safetensors file (loads in loadModel and attnscope-cli). */
  exportBytes() { return check(this.#live().exportBytes()); }

  /** Frees the trainer and its last model. */
  dispose() {
    this.#stopping = true;
    this.#model?.dispose();
    this.#model = null;
    release(this);
  }

  [Symbol.dispose]() { this.dispose(); }
}
