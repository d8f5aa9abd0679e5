#include "train/repeated_sequences.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "train/random.h"

namespace attnscope::train {
namespace {

// The probes' generator is seeded apart from the corpus': the same probes whatever corpus trains.
constexpr std::uint64_t kProbeSeed = 0x1d0c7;

void check(const RepeatedSequencesOptions& o, int probes) {
  auto fail = [](const std::string& what) { throw InputError("repeated sequences: " + what); };
  if (o.symbols < 2 || o.symbols > 1000) fail("symbols must be in [2, 1000], got " + std::to_string(o.symbols));
  if (o.half_length < 2 || o.half_length > o.symbols)
    fail("the half length must be in [2, symbols = " + std::to_string(o.symbols) + "], got " +
         std::to_string(o.half_length));
  if (o.min_half_length < 0 || o.min_half_length > o.half_length)
    fail("the least half length must be in [1, half length = " + std::to_string(o.half_length) + "] (0: the half length), got " +
         std::to_string(o.min_half_length));
  if (o.max_prefix < 0 || o.max_prefix > kMaxSideTokens || 2 * o.half_length + o.max_prefix > kMaxSideTokens)
    fail("a sequence of up to " + std::to_string(o.max_prefix) + " + twice " + std::to_string(o.half_length) +
         " tokens is longer than the " + std::to_string(kMaxSideTokens) + " a sentence may have");
  if (o.sequences < 1 || o.sequences > kMaxPairs)
    fail("sequences must be in [1, " + std::to_string(kMaxPairs) + "], got " + std::to_string(o.sequences));
  if (probes < 1 || probes > 64) fail("probes must be in [1, 64], got " + std::to_string(probes));
}

// `half` as the symbols' words.
std::string text_of(const std::vector<int>& half, const std::vector<std::string>& symbols) {
  std::string text;
  for (int s : half) text += (text.empty() ? "" : " ") + symbols[s];
  return text;
}

}  // namespace

RepeatedSequences repeated_sequences(const RepeatedSequencesOptions& options, int probes) {
  check(options, probes);
  RepeatedSequences out;
  for (int s = 0; s < options.symbols; ++s) out.symbols.push_back("s" + std::to_string(s));
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
  Random probe_random(kProbeSeed);
  std::vector<int> all(options.symbols);
  for (int i = 0; i < probes; ++i) {
    // The first half_length symbols of a Fisher-Yates shuffle: distinct, uniformly chosen.
    std::iota(all.begin(), all.end(), 0);
    for (std::size_t j = all.size(); j > 1; --j) std::swap(all[j - 1], all[probe_random.below(j)]);
    const std::string text = text_of({all.begin(), all.begin() + options.half_length}, out.symbols);
    out.probes.push_back(text + " " + text);
  }
  return out;
}

}  // namespace attnscope::train
