#pragma once
// The draw of sampling, with a generator whose output is fixed by the C++ standard
// (mt19937_64), so a seed means the same translation natively and in WebAssembly. The
// distribution it draws from (temperature, top-k, top-p, bans) comes from the decoding rules.
#include <cstdint>
#include <random>

#include "decoding/logits_processor.h"

namespace attnscope {

class Sampler {
 public:
  explicit Sampler(std::uint64_t seed = 0) { reseed(seed, 0); }

  // Restart from `seed`, as if `draws` numbers had already been taken (used by back()).
  void reseed(std::uint64_t seed, std::uint64_t draws) {
    engine_.seed(seed);
    engine_.discard(draws);
    draws_ = draws;
  }
  std::uint64_t draws() const { return draws_; }

  // u uniform in [0, 1) with 53 random bits.
  double uniform() {
    ++draws_;
    return static_cast<double>(engine_() >> 11) * 0x1.0p-53;
  }

  // Draws one of `c.kept` following src/decoding/README.md, "Sampling" (step 3): renormalise the
  // kept probabilities and walk them in order with one u. Exactly one u per call.
  int draw(const SamplingCandidates& c);

 private:
  std::mt19937_64 engine_;
  std::uint64_t draws_ = 0;
};

}  // namespace attnscope
