#pragma once
// A decoding rule ("logits processor", the idea of transformers.js's LogitsProcessorList and of
// HF's LogitsProcessor / LogitsWarper): one small class per rule in processors/, all of them
// registered in make_logits_processors() (logits_processors.cpp), applied in list order.
//
// Choosing the next token of one hypothesis runs five stages; a rule acts at exactly one:
//   Force    the rule names the next token (the forced prefix): the other stages do not run,
//            and the token's log-probability is the model's own, unaltered;
//   Reshape  the rule rewrites the logits row before it is normalised (repetition penalty): the
//            choice AND the hypothesis score use the log-softmax of the rewritten row;
//   Ban      the rule forbids tokens (min length, no-repeat n-gram): they cannot be chosen, the
//            others keep their log-probabilities (no renormalisation);
//   Warp     sampling only, the double-precision logits before the softmax (temperature);
//   Truncate sampling only, the candidates after the softmax (top-k, top-p).
// Warp and Truncate only change which token is drawn, never a score. Exact rules: README.md.
#include <vector>

namespace attnscope {

// The sampling distribution of one step, built by LogitsProcessorList::sampling_candidates.
struct SamplingCandidates {
  std::vector<double> p;  // [V] softmax over the whole vocabulary (0 for banned tokens)
  std::vector<int> kept;  // ids still in the draw, most probable first (ties: lower id first)
};

class LogitsProcessor {
 public:
  enum class Stage { Force, Reshape, Ban, Warp, Truncate };
  virtual ~LogitsProcessor() = default;
  virtual Stage stage() const = 0;

  // Each hook sees the hypothesis' generated tokens (`tokens`: no <s>, forced ones included).
  // Force: the token the hypothesis must take next, or -1.
  virtual int forced(const std::vector<int>& /*tokens*/) const { return -1; }
  // Reshape: rewrites `logits` [vocab] in place.
  virtual void reshape(const std::vector<int>& /*tokens*/, float* /*logits*/, int /*vocab*/) const {}
  // Ban: appends the ids that may not come next to `banned` (any order, repeats allowed).
  virtual void ban(const std::vector<int>& /*tokens*/, int /*vocab*/, std::vector<int>& /*banned*/) const {}
  // Warp: rewrites the logits in double, [vocab], before the softmax (banned tokens are -inf).
  virtual void warp(std::vector<double>& /*z*/) const {}
  // Truncate: shortens `c.kept`.
  virtual void truncate(SamplingCandidates& /*c*/) const {}
};

}  // namespace attnscope
