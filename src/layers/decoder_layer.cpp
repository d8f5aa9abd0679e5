#include "layers/decoder_layer.h"

#include "layers/transformer_layer.h"

namespace attnscope {
namespace {

// The target position of the current step (its key is already in the self-attention cache).
int position(const DecoderLayerState& state) { return state.self.length() - 1; }

// One step of n hypotheses: row i of the sub-layers' input is hypothesis i's current position,
// attending to its own key/value cache and to the (shared) projections of the source.
struct StepPass : InferencePass {
  const std::vector<DecoderLayerState*>& states;
  const std::vector<Probe>& probes;  // per hypothesis: where its attention goes

  Matrix self_attention(const MultiHeadAttention& attn, const Matrix& in) const {
    const Matrix q = attn.q_proj(in), k = attn.k_proj(in), v = attn.v_proj(in);
    Matrix heads(in.rows(), q.cols());
    for (Eigen::Index i = 0; i < in.rows(); ++i) {
      DecoderLayerState& state = *states[i];
      state.self.append(k.row(i), v.row(i));
      heads.row(i) = attn.attend(q.row(i), state.self.keys(), state.self.values(), probes[i].self_attn,
                                 edits.self_attn, position(state));
    }
    const Matrix out = attn.out_proj(heads);
    probe.record_attention("self_", q, k, v, out);
    return out;
  }

  Matrix cross_attention(const MultiHeadAttention& attn, const Matrix& in) const {
    const Matrix q = attn.q_proj(in);
    Matrix heads(in.rows(), q.cols());
    for (Eigen::Index i = 0; i < in.rows(); ++i) {
      const DecoderLayerState& state = *states[i];
      heads.row(i) = attn.attend(q.row(i), state.cross->k, state.cross->v, probes[i].cross_attn, edits.cross_attn,
                                 position(state));
    }
    Matrix out = attn.out_proj(heads);
    // A pre-attention encoder-decoder: the decoder gets one fixed summary of the source at
    // every step instead of looking at its words (the attention still runs, to be shown).
    if (edits.copy_source_encoding)
      for (Eigen::Index i = 0; i < in.rows(); ++i) out.row(i) = states[i]->cross->source_mean;
    if (probe.wants_vectors()) {
      probe.record("cross_q", q);
      probe.record("cross_attn_output", out);
    }
    return out;
  }
};

}  // namespace

DecoderLayerState DecoderLayer::start(const Matrix& memory) const {
  auto cross = std::make_shared<CrossMemory>();
  cross->k = cross_attn.k_proj(memory);
  cross->v = cross_attn.v_proj(memory);
  cross->source_mean = memory.colwise().mean();
  return DecoderLayerState{KVCache(), std::move(cross)};
}

Matrix DecoderLayer::step(const Matrix& y, const std::vector<DecoderLayerState*>& states,
                          const std::vector<Probe>& probes, const LayerEdits& edits) const {
  const Eigen::Index n = y.rows();
  if (states.size() != static_cast<std::size_t>(n) || probes.size() != states.size())
    throw Error("decoder layer step: " + std::to_string(n) + " rows, " + std::to_string(states.size()) + " states, " +
                std::to_string(probes.size()) + " probes");
  // Named vectors belong to one hypothesis; the decoder batches only without them.
  const Probe probe = n == 1 ? probes[0] : Probe{};
  StepPass pass{{probe, edits}, states, probes};
  return layer_forward(*this, y, pass);
}

}  // namespace attnscope
