// The bindings' free functions on sentences and corpora (no model): pairs read from CSV, the
// induction-heads corpora (repeated sequences, successor walks) and BLEU by source length of
// given translations. Each returns its result or {error} (conversions.h).
#pragma once

#include <string>

#include "conversions.h"

namespace attnscope::bindings {

// "source,target" lines (the CLI's --pairs format) as {sources, targets}, read and checked
// line by line (train/corpus.h): at most `max_pairs` pairs (the caller's limit, at most the
// engine's), stopping at the first line that breaks a limit.
val parse_pairs(const std::string& csv, int max_pairs);

// Random halves repeated twice (train/repeated_sequences.h): {halfLength, minHalfLength,
// maxPrefix, symbols, sequences, seed, probes} -> {symbols: words, pairs: [[source, target]],
// probes: texts}; the pairs are [prefix and first half, first half] (a language model learns
// <bos> source target </s>).
val repeated_sequences(int half_length, int min_half_length, int max_prefix, int symbols, int sequences, double seed,
                       int probes);

// In-context bigram walks (train/successor_walks.h): {symbols, length, jump, sequences, seed,
// probeLength, probes} -> {symbols, pairs, probes}; the pairs are [first half, second half] of
// each walk.
val successor_walks(int symbols, int length, double jump, int sequences, double seed, int probe_length, int probes);

// BLEU by source length of given translations (no model).
val bleu_by_length_of(const val& sources, const val& translations, const val& references, const val& edges);

}  // namespace attnscope::bindings
