#include "train/induction_corpus.h"

#include <numeric>

#include "core/error.h"
#include "core/random.h"

namespace attnscope::train {
namespace {

// The probes' generator is seeded apart from the corpora's: the same probes whatever corpus trains.
constexpr std::uint64_t kProbeSeed = 0x1d0c7;

}  // namespace

std::vector<std::string> symbol_words(int symbols) {
  std::vector<std::string> words;
  for (int s = 0; s < symbols; ++s) words.push_back("s" + std::to_string(s));
  return words;
}

std::string text_of(const std::vector<int>& ids, const std::vector<std::string>& words) {
  std::string text;
  for (int s : ids) text += (text.empty() ? "" : " ") + words[s];
  return text;
}

InductionCorpus start_corpus(const std::string& corpus, int symbols, int sequences, int probe_length, int probes) {
  if (symbols < 2 || symbols > 1000) throw InputError(corpus + ": symbols must be in [2, 1000], got " + std::to_string(symbols));
  if (sequences < 1 || sequences > kMaxPairs)
    throw InputError(corpus + ": sequences must be in [1, " + std::to_string(kMaxPairs) + "], got " + std::to_string(sequences));
  InductionCorpus out;
  out.symbols = symbol_words(symbols);
  out.probes = induction_probes(out.symbols, probe_length, probes);
  return out;
}

std::vector<std::string> induction_probes(const std::vector<std::string>& words, int half_length, int count) {
  if (count < 1 || count > 64) throw InputError("probes must be in [1, 64], got " + std::to_string(count));
  const int symbols = static_cast<int>(words.size());
  if (half_length < 2 || half_length > symbols)
    throw InputError("a probe's half length must be in [2, symbols = " + std::to_string(symbols) + "], got " +
                     std::to_string(half_length));
  Random random(kProbeSeed);
  std::vector<int> all(words.size());
  std::vector<std::string> probes;
  for (int i = 0; i < count; ++i) {
    // The first half_length symbols of a Fisher-Yates shuffle: distinct, uniformly chosen.
    std::iota(all.begin(), all.end(), 0);
    for (std::size_t j = all.size(); j > 1; --j) std::swap(all[j - 1], all[random.below(j)]);
    const std::string text = text_of({all.begin(), all.begin() + half_length}, words);
    probes.push_back(text + " " + text);
  }
  return probes;
}

}  // namespace attnscope::train
