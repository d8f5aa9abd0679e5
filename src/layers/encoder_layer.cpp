#include "layers/encoder_layer.h"

#include "layers/transformer_layer.h"

namespace attnscope {
namespace {

// A whole sentence at once: every position attends to every other.
struct EncoderPass : InferencePass {
  Matrix self_attention(const MultiHeadAttention& attn, const Matrix& in) const {
    const Matrix q = attn.q_proj(in), k = attn.k_proj(in), v = attn.v_proj(in);
    const Matrix out = attn.out_proj(attn.attend(q, k, v, probe.self_attn, edits.self_attn));
    probe.record_attention("", q, k, v, out);
    return out;
  }
};

}  // namespace

Matrix EncoderLayer::forward(const Matrix& x, const Probe& probe, const LayerEdits& edits) const {
  EncoderPass pass{{probe, edits}};
  return layer_forward(*this, x, pass);
}

}  // namespace attnscope
