#include "model/decoder.h"

#include "model/embedding.h"

namespace attnscope {

DecoderState start_decoder(const Model& model, const Matrix& memory) {
  DecoderState state;
  state.source_length = static_cast<int>(memory.rows());
  for (const DecoderLayer& layer : model.decoder_layers) state.layers.push_back(layer.start(memory));
  return state;
}

Matrix decode_step(const Model& model, DecoderState& state, int token, const Capture& capture, StepTrace* trace,
                   const Interventions& interventions) {
  const ModelConfig& c = model.config;
  const bool observe = trace != nullptr && capture.any();
  NamedVectors* vectors = observe && capture.vectors ? &trace->vectors : nullptr;

  Matrix y = embed(model.tgt_embed(), model.decoder_positions, {token}, state.length(), static_cast<float>(c.embedding_scale), vectors);

  const std::size_t n_layers = model.decoder_layers.size();
  std::vector<std::vector<Matrix>> self_attn(observe && capture.attention ? n_layers : 0);
  std::vector<std::vector<Matrix>> cross_attn(self_attn.size());
  for (std::size_t i = 0; i < n_layers; ++i) {
    Probe probe;
    if (!self_attn.empty()) {
      probe.self_attn = &self_attn[i];
      probe.cross_attn = &cross_attn[i];
    }
    probe.vectors = vectors;
    probe.prefix = "layers." + std::to_string(i) + ".";
    y = model.decoder_layers[i].step(y, state.layers[i], probe, interventions.decoder_layer(static_cast<int>(i), c));
  }
  if (c.norm == NormPosition::Pre && !interventions.skip_layer_norm) y = model.decoder_final_norm(y);

  Matrix logits = ops::linear(y, model.output_weight(), model.output_bias);
  if (observe && capture.attention) {
    trace->self_attn = pack_attention(self_attn, true);
    trace->cross_attn = pack_attention(cross_attn, true);
  }
  return logits;
}

}  // namespace attnscope
