#pragma once
// Temperature (sampling only): the logits are divided by T > 0 before the softmax.
#include <vector>

#include "decoding/logits_processor.h"

namespace attnscope {

class Temperature : public LogitsProcessor {
 public:
  explicit Temperature(double t) : t_(t) {}
  Stage stage() const override { return Stage::Warp; }
  void warp(std::vector<double>& z) const override {
    for (double& x : z) x /= t_;
  }

 private:
  double t_;
};

}  // namespace attnscope
