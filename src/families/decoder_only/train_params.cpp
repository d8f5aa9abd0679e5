#include "families/decoder_only/train_params.h"

namespace attnscope::train {

DecoderOnlyParams DecoderOnlyParams::zeros(const ModelConfig& shared, int vocab_size) {
  DecoderOnlyParams p;
  p.shared = shared;
  p.config = decoder_only::Config::from_json(shared.family_json);
  p.vocab_size = vocab_size;
  const decoder_only::Config& c = p.config;
  const int d = c.d_model;
  p.token_embed = Matrix::Zero(vocab_size, d);
  if (c.learned_positions) p.position_embed = Matrix::Zero(shared.max_positions, d);
  for (int i = 0; i < c.n_layers; ++i) {
    EncoderLayerParams layer{attention_zeros(d), norm_zeros(d), {}, {}};
    if (c.d_ff > 0) {
      layer.ffn = ffn_zeros(d, c.d_ff);
      layer.ffn_norm = norm_zeros(d);
    }
    p.layers.push_back(std::move(layer));
  }
  if (c.norm == NormPosition::Pre) p.final_norm = norm_zeros(d);
  if (!c.tied_output) p.output_weight = Matrix::Zero(vocab_size, d);
  p.output_bias = Matrix::Zero(1, vocab_size);
  return p;
}

TensorList DecoderOnlyParams::tensors() {
  TensorList out;
  out.push_back({"embed.token.weight", &token_embed, false});
  if (config.learned_positions) out.push_back({"embed.position.weight", &position_embed, false});
  for (std::size_t i = 0; i < layers.size(); ++i) add_tensors(out, "layers." + std::to_string(i), layers[i]);
  if (config.norm == NormPosition::Pre) add_tensors(out, "final_norm", final_norm);
  if (!config.tied_output) out.push_back({"output.weight", &output_weight, false});
  out.push_back({"output.bias", &output_bias, true});
  sort_by_name(out);
  return out;
}

void DecoderOnlyParams::set_zero() {
  for (NamedTensor& t : tensors()) t.tensor->setZero();
}

}  // namespace attnscope::train
