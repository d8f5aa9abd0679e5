#pragma once
// What the induction-heads corpora share (train/repeated_sequences.h, train/successor_walks.h):
// the symbols as words, the corpus with its probes, and the probes the scores are measured on
// (analysis/induction.h).
#include <string>
#include <vector>

#include "train/corpus.h"

namespace attnscope::train {

struct InductionCorpus {
  std::vector<std::string> symbols;  // the symbols as words ("s0", "s1", ...), one token each
  // Each training sequence as a pair: the source is its first part, the target the rest (the
  // symbols' words separated by spaces: the word tokenizer splits them back into one token a
  // symbol). A decoder-only model learns a pair as <bos> source target </s>, the whole sequence.
  std::vector<TrainPair> pairs;
  // Fixed probe sequences for the scores, drawn from their own seed: `half_length` distinct
  // symbols and then the same again, so every token of the repeated half has exactly one earlier
  // occurrence.
  std::vector<std::string> probes;
};

// "s0" … "s{symbols - 1}".
std::vector<std::string> symbol_words(int symbols);

// The symbols `ids` as their words, separated by spaces.
std::string text_of(const std::vector<int>& ids, const std::vector<std::string>& words);

// The start of a corpus of `sequences` sequences over `symbols` symbols: its words and `probes`
// probes of `probe_length` (the caller adds the pairs). Throws InputError, naming `corpus`, on
// symbols outside [2, 1000] or sequences outside [1, kMaxPairs], and as induction_probes.
InductionCorpus start_corpus(const std::string& corpus, int symbols, int sequences, int probe_length, int probes);

// `count` probes over `words`, the same whatever corpus they come with. Throws InputError on a
// count outside [1, 64] or a half length outside [2, words].
std::vector<std::string> induction_probes(const std::vector<std::string>& words, int half_length, int count);

}  // namespace attnscope::train
