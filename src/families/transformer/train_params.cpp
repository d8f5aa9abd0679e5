#include "families/transformer/train_params.h"

#include "core/error.h"

namespace attnscope::train {

void check_trainable(const ModelConfig& c) {
  // The model-file writer (model_file.cpp config_json) knows these options only.
  if (c.activation == Activation::Swish)
    throw InputError("training does not support activation \"swish\" (only relu and gelu)");
  if (c.positions == Positions::SinusoidalHalves)
    throw InputError("training does not support positions \"sinusoidal_halves\" (only sinusoidal and learned)");
  if (!c.suppress_tokens.empty())
    throw InputError("training does not support a model with suppress_tokens (its model file would lose them)");
}

TransformerParams TransformerParams::zeros(const ModelConfig& c, int src_vocab_size, int tgt_vocab_size) {
  TransformerParams p;
  p.config = c;
  p.src_vocab_size = src_vocab_size;
  p.tgt_vocab_size = tgt_vocab_size;
  const int d = c.d_model;
  p.src_embed = Matrix::Zero(src_vocab_size, d);
  if (!c.shared_embeddings) p.tgt_embed = Matrix::Zero(tgt_vocab_size, d);
  if (c.positions == Positions::Learned) {
    p.encoder_pos = Matrix::Zero(c.max_positions, d);
    p.decoder_pos = Matrix::Zero(c.max_positions, d);
  }
  for (int i = 0; i < c.n_encoder_layers; ++i)
    p.encoder.push_back({attention_zeros(d), norm_zeros(d), ffn_zeros(d, c.d_ff), norm_zeros(d)});
  for (int i = 0; i < c.n_decoder_layers; ++i)
    p.decoder.push_back({attention_zeros(d), norm_zeros(d), attention_zeros(d), norm_zeros(d), ffn_zeros(d, c.d_ff),
                         norm_zeros(d)});
  if (c.norm == NormPosition::Pre) {
    p.encoder_final_norm = norm_zeros(d);
    p.decoder_final_norm = norm_zeros(d);
  }
  if (!c.tied_output) p.output_weight = Matrix::Zero(tgt_vocab_size, d);
  p.output_bias = Matrix::Zero(1, tgt_vocab_size);
  return p;
}

std::vector<TransformerParams::Named> TransformerParams::tensors() {
  std::vector<Named> out;
  out.push_back({"src_embed.weight", &src_embed, false});
  if (!config.shared_embeddings) out.push_back({"tgt_embed.weight", &tgt_embed, false});
  if (config.positions == Positions::Learned) {
    out.push_back({"encoder.pos_embed.weight", &encoder_pos, false});
    out.push_back({"decoder.pos_embed.weight", &decoder_pos, false});
  }
  for (std::size_t i = 0; i < encoder.size(); ++i) {
    add_tensors(out, "encoder.layers." + std::to_string(i), encoder[i]);
  }
  for (std::size_t i = 0; i < decoder.size(); ++i) {
    const std::string p = "decoder.layers." + std::to_string(i);
    add_tensors(out, p + ".self_attn", decoder[i].self_attn);
    add_tensors(out, p + ".self_attn_norm", decoder[i].self_attn_norm);
    add_tensors(out, p + ".cross_attn", decoder[i].cross_attn);
    add_tensors(out, p + ".cross_attn_norm", decoder[i].cross_attn_norm);
    add_tensors(out, p + ".ffn", decoder[i].ffn);
    add_tensors(out, p + ".ffn_norm", decoder[i].ffn_norm);
  }
  if (config.norm == NormPosition::Pre) {
    add_tensors(out, "encoder.final_norm", encoder_final_norm);
    add_tensors(out, "decoder.final_norm", decoder_final_norm);
  }
  if (!config.tied_output) out.push_back({"output.weight", &output_weight, false});
  out.push_back({"output.bias", &output_bias, true});
  sort_by_name(out);
  return out;
}

void TransformerParams::set_zero() {
  for (Named& t : tensors()) t.tensor->setZero();
}

}  // namespace attnscope::train
