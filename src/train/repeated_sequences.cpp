#include "train/repeated_sequences.h"

#include "core/error.h"
#include "core/random.h"

namespace attnscope::train {
namespace {

// The symbols, the sequences and the half length (the probes' too) are checked by start_corpus.
void check(const RepeatedSequencesOptions& o) {
  auto fail = [](const std::string& what) { throw InputError("repeated sequences: " + what); };
  if (o.min_half_length < 0 || o.min_half_length > o.half_length)
    fail("the least half length must be in [1, half length = " + std::to_string(o.half_length) + "] (0: the half length), got " +
         std::to_string(o.min_half_length));
  if (o.max_prefix < 0 || o.max_prefix > kMaxSideTokens || 2 * o.half_length + o.max_prefix > kMaxSideTokens)
    fail("a sequence of up to " + std::to_string(o.max_prefix) + " + twice " + std::to_string(o.half_length) +
         " tokens is longer than the " + std::to_string(kMaxSideTokens) + " a sentence may have");
}

}  // namespace

RepeatedSequences repeated_sequences(const RepeatedSequencesOptions& options, int probes) {
  check(options);
  RepeatedSequences out = start_corpus("repeated sequences", options.symbols, options.sequences, options.half_length, probes);
  Random random(options.seed);
  const int shortest = options.min_half_length ? options.min_half_length : options.half_length;
  for (int i = 0; i < options.sequences; ++i) {
    std::vector<int> prefix(random.below(options.max_prefix + 1));
    std::vector<int> half(shortest + random.below(options.half_length - shortest + 1));
    for (std::vector<int>* part : {&prefix, &half})
      for (int& s : *part) s = static_cast<int>(random.below(options.symbols));  // uniform, with repeats
    const std::string text = text_of(half, out.symbols);
    out.pairs.push_back({prefix.empty() ? text : text_of(prefix, out.symbols) + " " + text, text});
  }
  return out;
}

}  // namespace attnscope::train
