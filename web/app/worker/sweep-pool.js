// A pool of engine workers for the head-importance sweep (Model.headImportance), so that a sweep
// uses every core: N module workers of web/app/worker/worker.js, each its own WebAssembly instance
// that loads the model once and keeps it. A sweep's heads (sites in table order × layer × head)
// are cut into N contiguous ranges, one `importance` request per worker with its range, and the
// answers are put end to end.
// Every number is the engine's: each worker computes the unmasked baseline the same way and its
// own heads, so the parts' baselines are equal (checked) and their heads are the whole sweep's.
//
//   const pool = new SweepPool();            // navigator.hardwareConcurrency workers, at most 4
//   const sweep = await pool.importance({ url, pairs, bleu }, ({ done, total }) => …);
import { Engine } from './client.js';

/** More workers than this cost memory (one model each) for little: the sweep's parts are short. */
export const MAX_WORKERS = 4;

/** The pool's size by default: one worker per core, at most MAX_WORKERS. */
export function defaultWorkers() {
  return Math.max(1, Math.min(globalThis.navigator?.hardwareConcurrency || 1, MAX_WORKERS));
}

/** Cuts `total` heads into `n` contiguous ranges {first, count} as even as they go, first to last. */
export function splitHeads(total, n) {
  const parts = Math.max(1, Math.min(n, total));
  const base = Math.floor(total / parts);
  const extra = total % parts;
  const ranges = [];
  for (let i = 0, first = 0; i < parts; i++) {
    const count = base + (i < extra ? 1 : 0);
    ranges.push({ first, count });
    first += count;
  }
  return ranges;
}

export class SweepPool {
  #engines;

  /** `size`: how many workers (default: defaultWorkers()). They start now and compile the engine. */
  constructor(size = defaultWorkers()) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`a sweep pool needs a whole number of workers >= 1, got ${size}`);
    this.#engines = Array.from({ length: size }, (_, i) => new Engine(new URL('./worker.js', import.meta.url), `attnscope-sweep-${i + 1}`));
  }

  get size() { return this.#engines.length; }

  /**
   * Model.headImportance(pairs, {bleu}) of the model at `url`, split over the pool's workers.
   * onProgress({done, total}): heads masked so far, over all workers.
   */
  async importance({ url, pairs, bleu = false }, onProgress) {
    // Every worker loads the model (once: it keeps it); the site table says how many heads there are.
    const [info] = await Promise.all(this.#engines.map((e) => e.request('load', { url })));
    const total = info.sites.reduce((n, s) => n + s.layers * s.heads, 0);
    const ranges = splitHeads(total, this.size);
    const done = ranges.map(() => 0);
    const parts = await Promise.all(ranges.map((heads, i) => this.#engines[i].request('importance', { url, pairs, bleu, heads }, (p) => {
      done[i] = p.done;
      onProgress?.({ done: done.reduce((a, b) => a + b, 0), total });
    })));
    const [first] = parts;
    for (const p of parts) {
      if (p.baseLogLikelihood !== first.baseLogLikelihood || p.tokens !== first.tokens || p.baseBleu !== first.baseBleu) {
        throw new Error('the sweep pool\'s workers disagree on the unmasked model\'s scores: their parts cannot be joined');
      }
    }
    return { ...first, heads: parts.flatMap((p) => p.heads) };
  }

  /** Stops the workers (their models go with them). */
  dispose() {
    for (const e of this.#engines) e.terminate();
    this.#engines = [];
  }
}
