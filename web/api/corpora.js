// The API's functions on sentences and corpora that need no model: BLEU by source length of
// given translations, the induction-heads corpora made by the engine from a seed, and the
// engine's heap in use (leak checks).

import { int, lengthEdges, texts } from './arguments.js';
import { AttnscopeError, check, init } from './runtime.js';

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
