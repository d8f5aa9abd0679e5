#pragma once
// In-context bigrams, the data the induction-heads preset learns on: every sequence has its own
// random successor map f over `symbols` symbols (each symbol's successor drawn uniformly, so
// several may share one), and is a walk on it: the first symbol is uniform, and each next one is
// f(previous) or, with probability `jump`, a uniform symbol again. No rule holds across
// sequences, so the only way to predict a token is to find where the current symbol occurred
// earlier in the same sequence and copy what followed it: a previous-token head feeding an
// induction head (Olsson et al. 2022; Bietti et al. 2023 and Edelman et al. 2024 learn from
// in-context bigrams of this kind). Measured: on random halves repeated twice (train/
// repeated_sequences.h), attention-only models copy with heads that look back by position, and
// no layer-2 head prefix-matches; on these walks, a layer-2 head attends to the token after the
// current one's earlier occurrence (docs/training.md). Made by the engine from a seed
// (train::Random): the page's Training panel and the tests see the same corpus natively and in
// WASM.
#include <cstdint>

#include "train/induction_corpus.h"

namespace attnscope::train {

struct SuccessorWalksOptions {
  int symbols = 24;       // the vocabulary the walks run over
  int length = 96;        // tokens a sequence: the pair's source is its first half, the target the rest
  double jump = 0.2;      // the probability that a token is drawn afresh rather than f(previous)
  int sequences = 256;    // of the training corpus
  int probe_length = 12;  // the probes' half length
  std::uint64_t seed = 1;
};

// Throws InputError on options outside the limits (2 <= symbols <= 1000, 2 · probe_length <=
// length <= 2 · kMaxSideTokens, 0 <= jump <= 1, 1 <= sequences <= kMaxPairs, 2 <= probe_length
// <= symbols, 1 <= probes <= 64).
InductionCorpus successor_walks(const SuccessorWalksOptions& options, int probes = 4);

}  // namespace attnscope::train
