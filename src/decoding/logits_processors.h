#pragma once
// The list of decoding rules a session applies (see logits_processor.h for the stages), built
// from DecodeOptions in one place: make_logits_processors().
#include <memory>
#include <vector>

#include "decoding/logits_processor.h"
#include "decoding/options.h"

namespace attnscope {

class LogitsProcessorList {
 public:
  void push(std::unique_ptr<LogitsProcessor> rule);
  bool empty() const { return rules_.empty(); }
  std::size_t size() const { return rules_.size(); }

  // The token the first Force rule names, or -1.
  int forced(const std::vector<int>& tokens) const;
  // Whether any rule rewrites logits (if not, the model's own row chooses and scores, and the
  // session keeps its fast path that never writes out the whole log-softmax).
  bool reshapes() const { return reshapes_; }
  void reshape(const std::vector<int>& tokens, float* logits, int vocab) const;
  // The ids that may not come next, sorted and unique. A rule whose bans, together with the bans
  // of the rules before it, would leave no token at all is skipped for this step.
  std::vector<int> banned(const std::vector<int>& tokens, int vocab) const;
  // Sampling: the logits (as float32, after Reshape) in double, Warp rules, softmax without the
  // banned ids, every other id sorted by probability, then the Truncate rules.
  SamplingCandidates sampling_candidates(const float* logits, int vocab, const std::vector<int>& banned) const;

 private:
  std::vector<std::unique_ptr<LogitsProcessor>> rules_;
  bool reshapes_ = false;
};

// Every rule the options ask for, in stage order (Force, Reshape, Ban, Warp, Truncate). Warp and
// Truncate rules are registered for sampling only. `eos` is the model's </s> id;
// `suppress_tokens` the model's never-chosen ids (config `suppress_tokens`); `limit` the tokens a
// hypothesis may generate (forced_eos needs it; 0 = unknown, no forced end).
LogitsProcessorList make_logits_processors(const DecodeOptions& options, int eos,
                                           const std::vector<int>& suppress_tokens = {}, int limit = 0);

}  // namespace attnscope
