// A loaded model (Model, loadModel): what it is (info, vocabularies, tokenizers) and what needs
// only the model: scoring, head importance, BLEU by length, embeddings, induction scores, the
// encoder-only calls, and translate() / generate(), which start a Session.

import { checkModelFile } from '../model-header.js';
import { AttnscopeError, check, handleOf, init, own, release } from './runtime.js';
import { attributionArgs, flag, int, ints, json, lengthEdges, siteOf, text, texts } from './arguments.js';
import { fileNamed, stageSource } from './download.js';
import { Session } from './session.js';

/**
 * Loads a model from a URL or path (Node), a Response, a Blob (a File), an ArrayBuffer or a
 * Uint8Array. A URL, path, Response or Blob is streamed into the engine as it arrives: this side
 * holds one chunk at a time, never the whole file.
 * `onProgress({loaded, total})` reports download progress in bytes; `signal`, an AbortSignal,
 * cancels a download or a file's read (the error's message is the abort reason's). `int8: true` runs the decoder's per-step products on int8 weights: about
 * twice as fast per token, but no longer the file's exact numbers (the encoder stays exact;
 * docs/benchmarks.md, int8 weights). `binary16` (default true) keeps the weights of a file stored
 * as F16 or BF16 in 16 bits, as the file holds them; `binary16: false` expands them to binary32: twice
 * their memory, the same results bit for bit (for timing the two against each other). A file
 * whose safetensors header says it cannot fit in the engine's memory, held as these options
 * hold it, is refused before any of it enters the engine, and a download as soon as its header
 * has arrived (web/model-header.js: the size and the limit are in the message). A download
 * or a file (Node) is read no further than its first 8 bytes when they are no safetensors header
 * (the engine says what they are), and no further than the end of its last tensor: more bytes,
 * or a larger Content-Length, are trailing data, refused.
 */
export async function loadModel(source, { onProgress, signal, int8 = false, binary16 = true, ...runtimeOptions } = {}) {
  if (typeof int8 !== 'boolean') throw new AttnscopeError(`int8 must be true or false, got ${JSON.stringify(int8)}`);
  if (typeof binary16 !== 'boolean') throw new AttnscopeError(`binary16 must be true or false, got ${JSON.stringify(binary16)}`);
  const runtime = await init(runtimeOptions);
  const named = fileNamed(typeof source === 'string' ? source : source?.url ?? source?.name);
  let got;
  try {
    got = source instanceof Uint8Array || source instanceof ArrayBuffer
      ? { bytes: source instanceof Uint8Array ? source : new Uint8Array(source) }
      : await stageSource(source, runtime, onProgress, { binary16 }, signal);
    // Bytes in hand (or what came of a file that is no model) are judged here, whole.
    if (got.bytes) got.header = checkModelFile(got.bytes, named, { binary16 });
  } catch (e) {
    got?.staged?.delete();
    throw e instanceof AttnscopeError ? e : new AttnscopeError(e.message); // web/model-header.js's refusals
  }
  const handle = new runtime.ModelHandle();
  try {
    // A staged file is emptied by its load: each tensor's bytes are freed as they are read.
    check(got.staged ? handle.loadStaged(got.staged, int8, binary16) : handle.load(got.bytes, int8, binary16));
  } catch (e) {
    handle.delete();
    throw e;
  } finally {
    got.staged?.delete();
  }
  const bytes = got.staged ? got.header.fileBytes : got.bytes.length;
  return new Model(runtime, handle, Object.freeze({ bytes, parameters: got.header?.parameters }));
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
      // Weights kept in binary16 (bfloat16): loaded with binary16 (the default) from a file that
      // stores them as F16 (BF16).
      binary16: info.binary16,
      bfloat16: info.bfloat16,
      architecture: info.architecture,
      // The architecture in words and as a diagram, as its family describes itself (no reader
      // needs to know the family): {family, words, blocks: [{id, column, label, detail}], links: [{from, to, label}]}.
      architectureDescription: info.architectureDescription,
      // false for an encoder-only model (BERT): translate() throws, encode() / fillMask() apply.
      hasDecoder: info.hasDecoder,
      // false for a decoder-only model (GPT): no encoder and no cross-attention; its text is a prompt.
      hasEncoder: info.hasEncoder,
      // What translate() starts from: 'source' (an encoder-decoder translates it), 'prompt' (a
      // decoder-only model continues it: the prompt opens its own context), 'text' (encoder-only:
      // encode() / fillMask() read it).
      input: info.input,
      // A prompt's rule (input 'prompt'; false otherwise): true where the model reads <bos> before
      // every prompt, as the tokenizer it comes from adds one (the model file's config.prepend_bos;
      // GPT-2 converted from Hugging Face: false). The prependBos option overrides it.
      prependBos: info.prependBos,
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
   * Encoder-only models (info.hasDecoder false): encodes `text`, a sentence or a pair written
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

  /**
   * Teacher-forced log-probability of `target` as the translation of `source` (a decoder-only
   * model: as the continuation of the prompt `source`; `prependBos` as in translate()).
   */
  score(source, target, { interventions = {}, prependBos } = {}) {
    return check(this.#live().score(text(source), text(target), json(interventions, 'intervention option'),
      flag(prependBos, 'prependBos')));
  }

  /**
   * Head importance: masks each head alone and reports the change in the references'
   * log-likelihood per token (negative = the head helps). `pairs` is [[source, reference], ...].
   * With `bleu: true` it also decodes every source greedily per masked head and reports the
   * change in corpus BLEU (13a, as sacreBLEU): baseBleu and each head's deltaBleu.
   * `heads: {first, count}`: only those heads of the sweep's order (sites in table order × layer ×
   * head), for a pool of workers that shares one sweep (web/app/worker/sweep-pool.js); the baseline is the
   * same in every part, so the parts' heads put end to end are the whole sweep's.
   * `prependBos`: a decoder-only model's prompts, as in translate().
   * Runs synchronously: call it in a Web Worker for big models.
   */
  headImportance(pairs, { onProgress, bleu = false, heads: { first = 0, count = -1 } = {}, prependBos } = {}) {
    if (!Array.isArray(pairs)) throw new AttnscopeError('headImportance needs an array of [source, reference] pairs');
    if (typeof bleu !== 'boolean') throw new AttnscopeError(`bleu must be true or false, got ${bleu}`);
    return check(this.#live().headSweep(pairs.map((p) => text(p[0])), pairs.map((p) => text(p[1])), bleu,
      int(first, 'heads.first'), int(count, 'heads.count'), onProgress ?? null, flag(prependBos, 'prependBos')));
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
   * capture: {attention = true, logits = true, vectors = false}, and for a decoder-only model
   * prependBos (true: the prompt is read after <bos>; false: without; unset: as the model file
   * says, info.prependBos). An empty prompt is <bos> alone whatever prependBos says.
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
   * The prompt's tokens are session.source.pieces: <bos> first only where the model reads one
   * (info.prependBos, or the prependBos option), as the tokenizer of a converted model adds it or
   * not (GPT-2's does not). The first step runs the causal stack over them at once: its attention
   * holds a row for each, [layers, heads, P, P]; each later step adds one row over the whole context.
   */
  generate(prompt, options = {}) { return this.translate(prompt, options); }

  /** Frees the model's WASM memory (sessions still running keep what they need). */
  dispose() { release(this); }

  [Symbol.dispose]() { this.dispose(); }
}
