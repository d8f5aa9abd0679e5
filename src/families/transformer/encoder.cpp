// The encoder stack: embeddings and positions, every encoder layer, and (pre-norm) the final
// LayerNorm. Returns the memory the decoder attends to, [source length, d].
#include "families/transformer/transformer.h"
#include "model/embedding.h"

namespace attnscope::transformer {

Matrix Transformer::encode(const std::vector<int>& src_ids, const Capture& capture, EncoderTrace* trace,
                           const Interventions& interventions) const {
  intervention_support().check(interventions);
  const Config& c = config_;
  const Weights& w = weights_;
  const bool observe = trace != nullptr && capture.any();
  NamedVectors* vectors = observe && capture.vectors ? &trace->vectors : nullptr;

  Matrix x = embed(w.src_embed, w.encoder_positions, src_ids, 0, static_cast<float>(c.embedding_scale), vectors);

  std::vector<std::vector<Matrix>> attn(observe && capture.attention ? w.encoder_layers.size() : 0);
  for (std::size_t i = 0; i < w.encoder_layers.size(); ++i) {
    Probe probe;
    if (!attn.empty()) probe.self_attn = &attn[i];
    probe.vectors = vectors;
    probe.prefix = "layers." + std::to_string(i) + ".";
    x = w.encoder_layers[i].forward(x, probe, encoder_edits(static_cast<int>(i), interventions));
  }
  if (c.norm == NormPosition::Pre && !interventions.skip_layer_norm) x = w.encoder_final_norm(x);

  if (observe) {
    if (capture.attention) {
      trace->attention.assign(sites_.size(), Tensor());
      trace->attention[kEncoderSelf] = pack_attention(attn, false);
    }
    if (vectors) (*vectors)["output"] = x;
  }
  return x;
}

}  // namespace attnscope::transformer
