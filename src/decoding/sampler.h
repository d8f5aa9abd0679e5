#pragma once
// Temperature / top-k / top-p sampling with a generator whose output is fixed by the C++
// standard (mt19937_64), so a seed means the same translation natively and in WebAssembly.
#include <cstdint>
#include <random>

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

  // Draws a token from `logits` (n values) following src/decoding/README.md, "Sampling".
  // `banned` (or -1) is excluded (used for </s> before min_length).
  int sample(const float* logits, int n, double temperature, int top_k, double top_p, int banned);

 private:
  std::mt19937_64 engine_;
  std::uint64_t draws_ = 0;
};

}  // namespace attnscope
