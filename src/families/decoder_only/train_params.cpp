#include "families/decoder_only/train_params.h"

#include "model/model.h"  // sinusoidal positions

namespace attnscope::train {

DecoderOnlyParams DecoderOnlyParams::zeros(const ModelConfig& shared, int vocab_size) {
  DecoderOnlyParams p;
  p.shared = shared;
  p.config = decoder_only::Config::from_json(shared.family_json);
  p.vocab_size = vocab_size;
  const decoder_only::Config& c = p.config;
  const int d = c.d_model, P = shared.max_positions;
  const float eps = c.layer_norm_eps;
  decoder_only::Weights& w = p.weights;
  w.tied_output = c.tied_output;
  w.token_embed = ops::WeightMatrix::plain(Matrix::Zero(vocab_size, d));
  w.positions = c.learned_positions ? Matrix(Matrix::Zero(P, d)) : sinusoidal_positions(P, d);
  for (int i = 0; i < c.n_layers; ++i) {
    decoder_only::Layer layer;
    layer.self_attn = attention_zeros(d, c.n_heads);
    layer.self_attn_norm = norm_zeros(d, eps);
    layer.ffn = ffn_zeros(d, c.d_ff, c.activation);
    if (c.d_ff > 0) layer.ffn_norm = norm_zeros(d, eps);
    layer.norm_position = c.norm;
    w.layers.push_back(std::move(layer));
  }
  if (c.norm == NormPosition::Pre) w.final_norm = norm_zeros(d, eps);
  if (!c.tied_output) w.output_weight_ = ops::WeightMatrix::plain(Matrix::Zero(vocab_size, d));
  w.output_bias = RowVector::Zero(vocab_size);
  return p;
}

TensorList DecoderOnlyParams::tensors() {
  decoder_only::Weights& w = weights;
  TensorList out;
  out.push_back({"embed.token.weight", w.token_embed.plain_matrix(), false});
  if (config.learned_positions) out.push_back({"embed.position.weight", w.positions, false});
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    decoder_only::Layer& layer = w.layers[i];
    const std::string name = "layers." + std::to_string(i);
    add_tensors(out, name + ".self_attn", layer.self_attn);
    add_tensors(out, name + ".self_attn_norm", layer.self_attn_norm);
    if (layer.ffn.empty()) continue;
    add_tensors(out, name + ".ffn", layer.ffn);
    add_tensors(out, name + ".ffn_norm", layer.ffn_norm);
  }
  if (config.norm == NormPosition::Pre) add_tensors(out, "final_norm", w.final_norm);
  if (!config.tied_output) out.push_back({"output.weight", w.output_weight_.plain_matrix(), false});
  out.push_back({"output.bias", w.output_bias, true});
  sort_by_name(out);
  return out;
}

void DecoderOnlyParams::set_zero() {
  for (NamedTensor& t : tensors()) t.tensor->setZero();
}

std::size_t count_values(const decoder_only::Layer& layer) {
  const std::size_t attention = count_values(layer.self_attn) + count_values(layer.self_attn_norm);
  return !layer.ffn.empty() ? attention + count_values(layer.ffn) + count_values(layer.ffn_norm) : attention;
}

}  // namespace attnscope::train
