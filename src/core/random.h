#pragma once
// The generator behind dropout masks, batch shuffling and fresh initialisation. mt19937_64's
// output is fixed by the C++ standard and the conversions below are ours (not the library's
// distributions, which differ between libstdc++ and libc++), so a seed gives the same numbers
// natively and in WebAssembly.
#include <cmath>
#include <cstdint>
#include <random>

namespace attnscope::train {

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Box-Muller, one normal per two uniforms.
  double normal(double stddev) {
    const double u1 = 1.0 - uniform(), u2 = uniform();  // u1 in (0, 1]
    return stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  std::uint64_t below(std::uint64_t n) { return static_cast<std::uint64_t>(uniform() * static_cast<double>(n)); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace attnscope::train
