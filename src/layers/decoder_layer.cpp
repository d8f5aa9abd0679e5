#include "layers/decoder_layer.h"

namespace attnscope {

// The target position of the current step (its key is already in the self-attention cache).
static int position(const DecoderLayerState& state) { return state.self.length() - 1; }

DecoderLayerState DecoderLayer::start(const Matrix& memory) const {
  DecoderLayerState state;
  state.cross_k = cross_attn.k_proj(memory);
  state.cross_v = cross_attn.v_proj(memory);
  state.source_mean = memory.colwise().mean();
  return state;
}

Matrix DecoderLayer::step(const Matrix& y, DecoderLayerState& state, const Probe& probe,
                          const LayerEdits& edits) const {
  const bool no_norm = edits.skip_layer_norm;
  Matrix h = residual(y, self_attn_norm, norm_position, [&](const Matrix& in) {
    const Matrix q = self_attn.q_proj(in), k = self_attn.k_proj(in), v = self_attn.v_proj(in);
    state.self.append(k, v);
    const Matrix out = self_attn.out_proj(
        self_attn.attend(q, state.self.keys(), state.self.values(), probe.self_attn, edits.self_attn, position(state)));
    if (probe.wants_vectors()) {
      probe.record("self_q", q);
      probe.record("self_k", k);
      probe.record("self_v", v);
      probe.record("self_attn_output", out);
    }
    return out;
  }, {edits.self_attn.skip, no_norm});

  h = residual(h, cross_attn_norm, norm_position, [&](const Matrix& in) {
    const Matrix q = cross_attn.q_proj(in);
    Matrix out = cross_attn.out_proj(
        cross_attn.attend(q, state.cross_k, state.cross_v, probe.cross_attn, edits.cross_attn, position(state)));
    // A pre-attention encoder-decoder: the decoder gets one fixed summary of the source at
    // every step instead of looking at its words (the attention still runs, to be shown).
    if (edits.copy_source_encoding) out = state.source_mean.replicate(out.rows(), 1);
    if (probe.wants_vectors()) {
      probe.record("cross_q", q);
      probe.record("cross_attn_output", out);
    }
    return out;
  }, {edits.cross_attn.skip, no_norm});

  Matrix out = residual(h, ffn_norm, norm_position, [&](const Matrix& in) { return ffn(in, probe); },
                        {edits.skip_ffn, no_norm});
  probe.record("output", out);
  return out;
}

}  // namespace attnscope
