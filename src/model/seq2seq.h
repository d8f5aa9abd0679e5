#pragma once
// The seam's calls for one model, spelled as the session and the scoring code use them.
#include <memory>
#include <vector>

#include "model/model.h"

namespace attnscope {

inline Matrix encode(const Model& model, const std::vector<int>& source_ids, const Capture& capture,
                     EncoderTrace* trace, const Interventions& interventions = Interventions{}) {
  return model.family->encode(source_ids, capture, trace, interventions);
}

inline std::unique_ptr<DecoderState> start_decoder(const Model& model, const Matrix& memory) {
  return model.decoder().start(memory);
}

// n hypotheses at once (a beam): see Decoder::step.
inline Matrix decode_steps(const Model& model, const std::vector<DecoderState*>& states, const std::vector<int>& tokens,
                           const Capture& capture, const std::vector<StepTrace*>& traces,
                           const Interventions& interventions = Interventions{}) {
  return model.decoder().step(states, tokens, capture, traces, interventions);
}

// Feeds `token` at the next position and returns the logits over the target vocabulary, [1, V].
inline Matrix decode_step(const Model& model, DecoderState& state, int token, const Capture& capture, StepTrace* trace,
                          const Interventions& interventions = Interventions{}) {
  return decode_steps(model, {&state}, {token}, capture, {trace}, interventions);
}

}  // namespace attnscope
