#pragma once
// Forced end: the last token a hypothesis may generate (the limit-th) is </s> (HF's
// forced_eos_token_id, ForcedEOSTokenLogitsProcessor). A Ban rule: one step before the limit
// every other token is banned, so a translation that runs to the limit still ends with </s>.
#include <vector>

#include "decoding/logits_processor.h"

namespace attnscope {

class ForcedEos : public LogitsProcessor {
 public:
  ForcedEos(int limit, int eos) : limit_(limit), eos_(eos) {}
  Stage stage() const override { return Stage::Ban; }
  void ban(const std::vector<int>& tokens, int vocab, std::vector<int>& banned) const override {
    if (static_cast<int>(tokens.size()) != limit_ - 1 || eos_ < 0 || eos_ >= vocab) return;
    for (int t = 0; t < vocab; ++t)
      if (t != eos_) banned.push_back(t);
  }

 private:
  int limit_;  // tokens a hypothesis may generate, </s> included
  int eos_;
};

}  // namespace attnscope
