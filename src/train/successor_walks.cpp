#include "train/successor_walks.h"

#include "core/error.h"
#include "core/random.h"

namespace attnscope::train {
namespace {

void check(const SuccessorWalksOptions& o) {
  auto fail = [](const std::string& what) { throw InputError("successor walks: " + what); };
  if (o.length < 2 * o.probe_length || o.length > 2 * kMaxSideTokens)
    fail("the length must be in [twice the probe length = " + std::to_string(2 * o.probe_length) + ", " +
         std::to_string(2 * kMaxSideTokens) + "], got " + std::to_string(o.length));
  if (!(o.jump >= 0.0 && o.jump <= 1.0)) fail("jump must be a probability in [0, 1], got " + std::to_string(o.jump));
}

}  // namespace

InductionCorpus successor_walks(const SuccessorWalksOptions& options, int probes) {
  check(options);
  InductionCorpus out = start_corpus("successor walks", options.symbols, options.sequences, options.probe_length, probes);
  Random random(options.seed);
  auto uniform_symbol = [&] { return static_cast<int>(random.below(options.symbols)); };
  std::vector<int> successor(options.symbols), walk(options.length);
  for (int i = 0; i < options.sequences; ++i) {
    for (int& s : successor) s = uniform_symbol();
    walk[0] = uniform_symbol();
    for (int t = 1; t < options.length; ++t)
      walk[t] = random.uniform() < options.jump ? uniform_symbol() : successor[walk[t - 1]];
    const auto middle = walk.begin() + options.length / 2;
    out.pairs.push_back({text_of({walk.begin(), middle}, out.symbols), text_of({middle, walk.end()}, out.symbols)});
  }
  return out;
}

}  // namespace attnscope::train
