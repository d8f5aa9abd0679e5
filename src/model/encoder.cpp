#include "model/encoder.h"

#include "model/embedding.h"

namespace attnscope {

Matrix encode(const Model& model, const std::vector<int>& src_ids, const Capture& capture, EncoderTrace* trace,
              const Interventions& interventions) {
  const ModelConfig& c = model.config;
  const bool observe = trace != nullptr && capture.any();
  NamedVectors* vectors = observe && capture.vectors ? &trace->vectors : nullptr;

  Matrix x = embed(model.src_embed, model.encoder_positions, src_ids, 0, static_cast<float>(c.embedding_scale), vectors);

  std::vector<std::vector<Matrix>> attn(observe && capture.attention ? model.encoder_layers.size() : 0);
  for (std::size_t i = 0; i < model.encoder_layers.size(); ++i) {
    Probe probe;
    if (!attn.empty()) probe.self_attn = &attn[i];
    probe.vectors = vectors;
    probe.prefix = "layers." + std::to_string(i) + ".";
    x = model.encoder_layers[i].forward(x, probe, interventions.encoder_layer(static_cast<int>(i), c));
  }
  if (c.norm == NormPosition::Pre && !interventions.skip_layer_norm) x = model.encoder_final_norm(x);

  if (observe) {
    if (capture.attention) trace->self_attn = pack_attention(attn, false);
    if (vectors) (*vectors)["output"] = x;
  }
  return x;
}

}  // namespace attnscope
