#pragma once
// Top-k (sampling only): only the k most probable tokens stay in the draw.
#include "decoding/logits_processor.h"

namespace attnscope {

class TopK : public LogitsProcessor {
 public:
  explicit TopK(int k) : k_(k) {}
  Stage stage() const override { return Stage::Truncate; }
  void truncate(SamplingCandidates& c) const override {
    if (c.kept.size() > static_cast<std::size_t>(k_)) c.kept.resize(k_);
  }

 private:
  int k_;
};

}  // namespace attnscope
