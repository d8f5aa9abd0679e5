#include "layers/decoder_layer.h"

namespace attnscope {

// The target position of the current step (its key is already in the self-attention cache).
static int position(const DecoderLayerState& state) { return state.self.length() - 1; }

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
  const Probe& probe = n == 1 ? probes[0] : Probe{};
  const bool no_norm = edits.skip_layer_norm;

  Matrix h = residual(y, self_attn_norm, norm_position, [&](const Matrix& in) {
    const Matrix q = self_attn.q_proj(in), k = self_attn.k_proj(in), v = self_attn.v_proj(in);
    Matrix heads(n, q.cols());
    for (Eigen::Index i = 0; i < n; ++i) {
      DecoderLayerState& state = *states[i];
      state.self.append(k.row(i), v.row(i));
      heads.row(i) = self_attn.attend(q.row(i), state.self.keys(), state.self.values(), probes[i].self_attn,
                                      edits.self_attn, position(state));
    }
    const Matrix out = self_attn.out_proj(heads);
    probe.record_attention("self_", q, k, v, out);
    return out;
  }, {edits.self_attn.skip, no_norm});

  h = residual(h, cross_attn_norm, norm_position, [&](const Matrix& in) {
    const Matrix q = cross_attn.q_proj(in);
    Matrix heads(n, q.cols());
    for (Eigen::Index i = 0; i < n; ++i) {
      const DecoderLayerState& state = *states[i];
      heads.row(i) = cross_attn.attend(q.row(i), state.cross->k, state.cross->v, probes[i].cross_attn,
                                       edits.cross_attn, position(state));
    }
    Matrix out = cross_attn.out_proj(heads);
    // A pre-attention encoder-decoder: the decoder gets one fixed summary of the source at
    // every step instead of looking at its words (the attention still runs, to be shown).
    if (edits.copy_source_encoding)
      for (Eigen::Index i = 0; i < n; ++i) out.row(i) = states[i]->cross->source_mean;
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
