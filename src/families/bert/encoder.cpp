// BERT's forward pass up to the final hidden states: the three embeddings and their LayerNorm,
// then every post-LN layer (layers/encoder_layer.h), recording what the capture asks for.
#include <cmath>

#include "families/bert/bert.h"
#include "model/embedding.h"

namespace attnscope::bert {
Matrix Bert::encode(const std::vector<int>& ids, const Capture& capture, EncoderTrace* trace,
                    const Interventions& interventions) const {
  intervention_support().check(interventions);
  if (ids.empty()) throw InputError("a BERT input needs at least one token");
  const Weights& w = weights_;
  const bool observe = trace != nullptr && capture.any();
  NamedVectors* vectors = observe && capture.vectors ? &trace->vectors : nullptr;
  const Interventions iv = interventions.empty() ? interventions : interventions.resolved(sites_);

  const std::vector<int> segments = segments_of(ids);
  Matrix x = embed(w.token_embed, w.positions, ids, 0, 1.0f, vectors);
  Matrix seg(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < seg.rows(); ++i) seg.row(i) = w.segment_embed.row(segments[static_cast<std::size_t>(i)]);
  x += seg;
  if (!iv.skip_layer_norm) x = w.embed_norm(x);
  if (vectors) {
    (*vectors)["segment"] = seg;
    (*vectors)["embedding_sum"] = x;
  }

  const int H = config_.n_heads;
  std::vector<std::vector<Matrix>> attn(observe && capture.attention ? w.layers.size() : 0);
  for (std::size_t l = 0; l < w.layers.size(); ++l) {
    const EncoderLayer& layer = w.layers[l];
    Probe probe;
    if (!attn.empty()) probe.self_attn = &attn[l];
    probe.vectors = vectors;
    probe.prefix = "layers." + std::to_string(l) + ".";
    LayerEdits edits;
    if (!iv.empty()) {
      edits.self_attn = iv.attention_edits(sites_[kSelf].name, static_cast<int>(l), iv.skip_encoder_self_attention, H);
      edits.skip_ffn = iv.skip_ffn;
      edits.skip_layer_norm = iv.skip_layer_norm;
    }
    x = layer.forward(x, probe, edits);
    if (vectors) {
      // f_h(x_j) = v_h(x_j) W_o^h: head h's columns of the output projection.
      const Matrix& v = (*vectors)[probe.prefix + "v"];
      const Eigen::Index T = v.rows(), d = v.cols(), dh = d / H;
      Matrix f(H * T, d);
      for (int h = 0; h < H; ++h)
        f.middleRows(h * T, T).noalias() =
            v.middleCols(h * dh, dh) *
            layer.self_attn.out_proj.weight.middle_cols(static_cast<int>(h * dh), static_cast<int>(dh)).transpose();
      probe.record("transformed_values", f);
    }
  }

  if (observe) {
    if (capture.attention) {
      trace->attention.assign(sites_.size(), Tensor());
      trace->attention[kSelf] = pack_attention(attn, false);
    }
    if (vectors) {
      (*vectors)["output"] = x;
      if (config_.pooler) {
        Matrix pooled = w.pooler(x.topRows(1));
        pooled = pooled.array().tanh().matrix();
        (*vectors)["pooled"] = pooled;
      }
    }
  }
  return x;
}

}  // namespace attnscope::bert
