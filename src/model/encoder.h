#pragma once
#include <vector>

#include "model/interventions.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnscope {

// The encoder stack: embeddings and positions, every encoder layer, and (pre-norm) the final
// LayerNorm. Returns the memory the decoder attends to, [source length, d].
// `trace` may be null; otherwise it receives what `capture` asks for.
Matrix encode(const Model& model, const std::vector<int>& src_ids, const Capture& capture, EncoderTrace* trace,
              const Interventions& interventions = Interventions{});

}  // namespace attnscope
