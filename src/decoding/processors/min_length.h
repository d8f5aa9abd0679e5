#pragma once
// Minimum length: </s> may not end a hypothesis that has fewer than `min_length` tokens.
#include <vector>

#include "decoding/logits_processor.h"

namespace attnscope {

class MinLength : public LogitsProcessor {
 public:
  MinLength(int min_length, int eos) : min_length_(min_length), eos_(eos) {}
  Stage stage() const override { return Stage::Ban; }
  void ban(const std::vector<int>& tokens, int vocab, std::vector<int>& banned) const override {
    if (static_cast<int>(tokens.size()) < min_length_ && eos_ >= 0 && eos_ < vocab) banned.push_back(eos_);
  }

 private:
  int min_length_;
  int eos_;
};

}  // namespace attnscope
