// Training in the engine (createTrainer, Trainer, TRAIN_LIMITS): a fresh model or a model file
// trained on sentence pairs one epoch at a time, within the sizes a browser tab can afford; after
// each epoch the weights are a Model.

import { AttnscopeError, check, handleOf, init, own, release } from './runtime.js';
import { json, text } from './arguments.js';
import { readSource } from './download.js';
import { Model } from './model.js';

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
  // The family, the names and how the sizes fit together (dModel over heads) are checked by the engine.
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
  // Training holds every weight in binary32: the size rule judges the file so.
  const bytes = from === undefined ? null : await readSource(from, undefined, { binary16: false });
  const handle = new runtime.TrainerHandle();
  try {
    check(bytes ? handle.resume(bytes, sources, targets, optionsJson) : handle.create(sources, targets, optionsJson));
  } catch (e) {
    handle.delete();
    throw e;
  }
  return new Trainer(runtime, handle);
}

/**
 * The fresh models the demo page's Training panel offers, as each model family registers them in
 * the engine (src/model/registry.h TrainingPreset), the default family's first first: [{id,
 * label, family, heads (whether the model has heads), width (the option the width sets: 'dModel',
 * 'dHidden'), widthLabel, proposedLr, options}]. A recipe {layers, heads, dModel (the width),
 * seed, lr} trains with createTrainer options `options` plus layers, heads (where it has heads),
 * [width]: the width, seed and lr.
 */
export async function trainingPresets() {
  const runtime = await init();
  return Object.freeze(check(runtime.trainingPresets()).map((p) => Object.freeze({
    ...p, options: Object.freeze(JSON.parse(p.options)),
  })));
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
