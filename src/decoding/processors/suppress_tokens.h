#pragma once
// Suppressed tokens: ids the model file says the decoder never chooses (config `suppress_tokens`;
// Marian's pad, which HF bans through bad_words_ids). A Ban rule: the other tokens keep their
// log-probabilities, as HF's NoBadWordsLogitsProcessor leaves them on beam search's log-probs.
#include <vector>

#include "decoding/logits_processor.h"

namespace attnscope {

class SuppressTokens : public LogitsProcessor {
 public:
  explicit SuppressTokens(std::vector<int> ids) : ids_(std::move(ids)) {}
  Stage stage() const override { return Stage::Ban; }
  void ban(const std::vector<int>& /*tokens*/, int vocab, std::vector<int>& banned) const override {
    for (int id : ids_)
      if (id >= 0 && id < vocab) banned.push_back(id);
  }

 private:
  std::vector<int> ids_;
};

}  // namespace attnscope
