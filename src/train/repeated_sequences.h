#pragma once
// Random halves repeated twice, the sequences Olsson et al. 2022 ("In-context learning and
// induction heads") measure induction heads on: tokens drawn uniformly from `symbols` symbols,
// each half followed by itself again, so a repeated half is predictable only by looking back. The
// halves' lengths vary (uniform in [min_half_length, half_length]) and a random number of
// unrepeated symbols (up to max_prefix) comes first, so that position alone tells where the
// earlier copy is only now and then. Even so, trained on these a 2-layer attention-only model
// copies with first-layer heads that look back by position, and no layer-2 head prefix-matches
// (docs/training.md); the induction preset trains on train/successor_walks.h instead. Made by the
// engine from a seed (train::Random): natively and in WASM the same corpus.
#include <cstdint>
#include <string>
#include <vector>

#include "train/corpus.h"
#include "train/induction_corpus.h"

namespace attnscope::train {

struct RepeatedSequencesOptions {
  int half_length = 10;     // the most tokens before the repeat (the probes' length)
  int min_half_length = 0;  // the fewest (0: half_length, every sequence as long)
  int max_prefix = 0;       // the most unrepeated symbols before the first half
  int symbols = 16;      // the vocabulary the tokens are drawn from
  int sequences = 256;   // of the training corpus
  std::uint64_t seed = 1;
};

// The corpus: pairs [prefix and first half, first half again], and the probes (their half is
// half_length long).
using RepeatedSequences = InductionCorpus;

// Throws InputError on options outside the limits (half_length >= 2, 2 <= symbols <= 1000,
// half_length <= symbols, 1 <= min_half_length <= half_length unless 0, 0 <= max_prefix,
// 1 <= sequences <= kMaxPairs, 2 · half_length + max_prefix <= kMaxSideTokens, 1 <= probes <= 64).
RepeatedSequences repeated_sequences(const RepeatedSequencesOptions& options, int probes = 4);

}  // namespace attnscope::train
