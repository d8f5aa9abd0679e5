#pragma once
#include <vector>

#include "model/interventions.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnscope {

// Everything the decoder carries from one step to the next for one hypothesis.
struct DecoderState {
  std::vector<DecoderLayerState> layers;
  int source_length = 0;
  int length() const { return layers.empty() ? 0 : layers[0].self.length(); }  // positions fed so far
  // Forget every position from `length` on (stepping back is this, not a re-run).
  void truncate(int length) {
    for (DecoderLayerState& layer : layers) layer.self.truncate(length);
  }
};

// Projects the encoder memory into every layer's cross-attention keys and values (once).
DecoderState start_decoder(const Model& model, const Matrix& memory);

// Feeds `token` at the next position and returns the logits over the target vocabulary, [1, V].
// `trace` may be null; otherwise it receives what `capture` asks for.
Matrix decode_step(const Model& model, DecoderState& state, int token, const Capture& capture, StepTrace* trace,
                   const Interventions& interventions = Interventions{});

// The same for n hypotheses at once (a beam): feeds tokens[i] to states[i] and returns the
// logits [n, V], row i for hypothesis i (traces[i] may be null). One batched step reads each
// weight matrix once for all hypotheses, and gives each row the bits decode_step would.
Matrix decode_steps(const Model& model, const std::vector<DecoderState*>& states, const std::vector<int>& tokens,
                    const Capture& capture, const std::vector<StepTrace*>& traces,
                    const Interventions& interventions = Interventions{});

}  // namespace attnscope
