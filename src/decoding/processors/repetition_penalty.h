#pragma once
// Repetition penalty (CTRL, Keskar et al. 2019, in HF's sign-aware form): the logit x of every
// distinct token already in the hypothesis becomes x / θ if x > 0, else x · θ, computed in
// double and rounded to float32 once. θ > 1 discourages repeats, θ < 1 encourages them.
#include <algorithm>
#include <vector>

#include "decoding/logits_processor.h"

namespace attnscope {

class RepetitionPenalty : public LogitsProcessor {
 public:
  explicit RepetitionPenalty(double theta) : theta_(theta) {}
  Stage stage() const override { return Stage::Reshape; }
  void reshape(const std::vector<int>& tokens, float* logits, int vocab) const override {
    std::vector<int> seen = tokens;  // each token is penalised once, however often it occurs
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (int t : seen) {
      if (t < 0 || t >= vocab) continue;
      const double x = logits[t];
      logits[t] = static_cast<float>(x > 0.0 ? x / theta_ : x * theta_);
    }
  }

 private:
  double theta_;
};

}  // namespace attnscope
