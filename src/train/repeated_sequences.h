#pragma once
// The induction-heads data (Olsson et al. 2022, "In-context learning and induction heads"):
// sequences of tokens drawn uniformly from `symbols` symbols, each followed by itself again. A
// model can predict a repeated half only by looking back (an induction head); the first half
// stays at chance (ln symbols nats). So that position alone tells where the earlier copy is only
// now and then, and the lookup must be by content (a previous-token head feeding an induction
// head), the halves' lengths vary (uniform in [min_half_length, half_length]) and a random number
// of unrepeated random symbols (up to max_prefix) comes first. Measured: with one fixed length a
// first-layer head copied from a fixed distance, and with the halves right after <bos>
// first-layer heads attended to a fraction of the position; in neither did a layer-2 head
// prefix-match. Made by the engine from a seed (train::Random): the page's Training panel and the
// tests see the same corpus natively and in WASM.
#include <cstdint>
#include <string>
#include <vector>

#include "train/corpus.h"

namespace attnscope::train {

struct RepeatedSequencesOptions {
  int half_length = 10;     // the most tokens before the repeat (the probes' length)
  int min_half_length = 0;  // the fewest (0: half_length, every sequence as long)
  int max_prefix = 0;       // the most unrepeated symbols before the first half
  int symbols = 16;      // the vocabulary the tokens are drawn from
  int sequences = 256;   // of the training corpus
  std::uint64_t seed = 1;
};

struct RepeatedSequences {
  std::vector<std::string> symbols;  // the symbols as words ("s0", "s1", ...), one token each
  // Each training sequence as a pair: the source is its unrepeated prefix and its first half, the
  // target the half again (the symbols' words separated by spaces: the word tokenizer splits them
  // back into one token a symbol). A decoder-only model learns a pair as <bos> source target </s>,
  // the whole sequence.
  std::vector<TrainPair> pairs;
  // Fixed probe sequences for the scores (analysis/induction.h), drawn from their own seed: each
  // half's tokens are distinct, so every token of the repeated half has exactly one earlier
  // occurrence.
  std::vector<std::string> probes;
};

// Throws InputError on options outside the limits (half_length >= 2, 2 <= symbols <= 1000,
// half_length <= symbols, 1 <= min_half_length <= half_length unless 0, 0 <= max_prefix,
// 1 <= sequences <= kMaxPairs, 2 · half_length + max_prefix <= kMaxSideTokens).
RepeatedSequences repeated_sequences(const RepeatedSequencesOptions& options, int probes = 4);

}  // namespace attnscope::train
