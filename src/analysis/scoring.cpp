#include "analysis/scoring.h"

#include "model/seq2seq.h"

namespace attnscope {

TargetScore score_target(const Model& model, const Source& source, const std::vector<int>& target,
                         const Interventions& unresolved) {
  const SpecialTokens& special = model.config.special;
  if (static_cast<int>(target.size()) + 1 > model.config.max_positions - 1)
    throw InputError("the target has " + std::to_string(target.size() + 1) + " tokens with </s>, more than the " +
                     std::to_string(model.config.max_positions - 1) + " this model can generate");
  const Interventions interventions = unresolved.resolved(model.sites());
  std::unique_ptr<DecoderState> state = start_decoder(model, encode(model, source.ids, {}, nullptr, interventions));
  TargetScore score;
  int fed = special.bos;
  for (std::size_t i = 0; i <= target.size(); ++i) {
    const int next = i < target.size() ? target[i] : special.eos;
    const Matrix log_probs = ops::log_softmax_rows(decode_step(model, *state, fed, {}, nullptr, interventions));
    if (next < 0 || next >= log_probs.cols())
      throw IndexError("target token id " + std::to_string(next) + " is outside the vocabulary");
    score.token_log_probs.push_back(log_probs(0, next));
    score.log_prob += log_probs(0, next);
    fed = next;
  }
  return score;
}

}  // namespace attnscope
