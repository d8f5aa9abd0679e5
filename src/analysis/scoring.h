#pragma once
// How likely the model finds a given translation: teacher-forced log-probabilities.
#include <vector>

#include "decoding/source.h"
#include "model/interventions.h"

namespace attnscope {

struct TargetScore {
  double log_prob = 0.0;             // sum over the tokens (</s> included)
  std::vector<float> token_log_probs;  // one per target token
};

// Feeds <s> + target and sums log p(target_i | target_<i, source); `target` has no <s> and
// no </s> (</s> is scored at the end). Throws InputError if it does not fit max_positions.
TargetScore score_target(const Model& model, const Source& source, const std::vector<int>& target,
                         const Interventions& interventions = Interventions{});

}  // namespace attnscope
