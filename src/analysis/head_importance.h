#pragma once
// Which heads matter? Mask one head at a time and measure how much less likely the model
// finds the reference translations of a development set (Michel et al. 2019 for translation).
#include <functional>
#include <vector>

#include "analysis/scoring.h"

namespace attnscope {

struct DevPair {
  Source source;
  std::vector<int> reference;  // target ids, no specials
};

struct HeadImportance {
  AttentionSite site;
  int layer, head;
  double delta_log_likelihood;  // per reference token: masked minus unmasked (negative = the head helps)
};

struct HeadSweep {
  double base_log_likelihood = 0.0;  // per reference token, nothing masked
  int tokens = 0;
  std::vector<HeadImportance> heads;  // every site x layer x head, in that order
};

// `progress(done, total)` is called after each head (and once before the first).
HeadSweep head_importance_sweep(const Model& model, const std::vector<DevPair>& dev,
                                const std::function<void(int, int)>& progress = {});

}  // namespace attnscope
