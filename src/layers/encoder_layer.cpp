#include "layers/encoder_layer.h"

namespace attnscope {

Matrix EncoderLayer::forward(const Matrix& x, const Probe& probe, const LayerEdits& edits) const {
  const bool no_norm = edits.skip_layer_norm;
  Matrix h = residual(x, self_attn_norm, norm_position, [&](const Matrix& in) {
    const Matrix q = self_attn.q_proj(in), k = self_attn.k_proj(in), v = self_attn.v_proj(in);
    const Matrix out = self_attn.out_proj(self_attn.attend(q, k, v, probe.self_attn, edits.self_attn));
    probe.record_attention("", q, k, v, out);
    return out;
  }, {edits.self_attn.skip, no_norm});

  Matrix y = residual(h, ffn_norm, norm_position, [&](const Matrix& in) { return ffn(in, probe); },
                      {edits.skip_ffn, no_norm});
  probe.record("output", y);
  return y;
}

}  // namespace attnscope
