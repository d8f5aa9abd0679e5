#include "decoding/sampler.h"

namespace attnscope {

int Sampler::draw(const SamplingCandidates& c) {
  double kept = 0.0;
  for (int id : c.kept) kept += c.p[id];
  const double u = uniform();
  double cumulative = 0.0;
  for (int id : c.kept) {
    cumulative += c.p[id] / kept;
    if (cumulative > u) return id;
  }
  return c.kept.back();
}

}  // namespace attnscope
