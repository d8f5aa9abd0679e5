#pragma once
// No repeated n-gram (fairseq's --no-repeat-ngram-size, HF's NoRepeatNGramLogitsProcessor): a
// token may not come next if it would complete an n-gram that the hypothesis' tokens (no <s>;
// forced tokens included) already contain. n = 1 bans every token already generated.
#include <algorithm>
#include <vector>

#include "decoding/logits_processor.h"

namespace attnscope {

class NoRepeatNGram : public LogitsProcessor {
 public:
  explicit NoRepeatNGram(int n) : n_(n) {}
  Stage stage() const override { return Stage::Ban; }
  void ban(const std::vector<int>& tokens, int vocab, std::vector<int>& banned) const override {
    const int len = static_cast<int>(tokens.size());
    if (len < n_ - 1) return;
    // The next token follows the last n - 1 tokens; every earlier occurrence of those n - 1
    // tokens followed by some token t makes the n-gram ending in t a repeat.
    const auto last = tokens.end() - (n_ - 1);
    for (int i = 0; i + n_ <= len; ++i) {
      const int t = tokens[i + n_ - 1];
      if (t >= 0 && t < vocab && std::equal(tokens.begin() + i, tokens.begin() + i + n_ - 1, last))
        banned.push_back(t);
    }
  }

 private:
  int n_;
};

}  // namespace attnscope
