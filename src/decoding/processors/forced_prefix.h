#pragma once
// Forced prefix: the first tokens of every translation are given (`prefix`), as if force() were
// called for each; their log-probabilities are the model's own.
#include <vector>

#include "decoding/logits_processor.h"

namespace attnscope {

class ForcedPrefix : public LogitsProcessor {
 public:
  explicit ForcedPrefix(std::vector<int> prefix) : prefix_(std::move(prefix)) {}
  Stage stage() const override { return Stage::Force; }
  int forced(const std::vector<int>& tokens) const override {
    return tokens.size() < prefix_.size() ? prefix_[tokens.size()] : -1;
  }

 private:
  std::vector<int> prefix_;  // target ids, no <s>
};

}  // namespace attnscope
