#pragma once
// Top-p, nucleus sampling (Holtzman et al. 2020; sampling only): the shortest run of the kept
// tokens, most probable first, whose whole-vocabulary (not renormalised) probabilities sum to
// >= p stays; if none does, all kept tokens stay.
#include <algorithm>

#include "decoding/logits_processor.h"

namespace attnscope {

class TopP : public LogitsProcessor {
 public:
  explicit TopP(double p) : p_(p) {}
  Stage stage() const override { return Stage::Truncate; }
  void truncate(SamplingCandidates& c) const override {
    if (c.kept.empty()) return;
    double mass = 0.0;
    std::size_t i = 0;
    while (i < c.kept.size()) {
      mass += c.p[c.kept[i++]];
      if (mass >= p_) break;
    }
    c.kept.resize(std::max<std::size_t>(i, 1));
  }

 private:
  double p_;
};

}  // namespace attnscope
