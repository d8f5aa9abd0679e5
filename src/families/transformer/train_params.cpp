#include "families/transformer/train_params.h"

#include "core/error.h"
#include "model/model.h"  // sinusoidal positions

namespace attnscope::train {

void check_trainable(const ModelConfig& shared, const transformer::Config& c) {
  // What the reference trainer (models/train/train.py), and so the training goldens, cover.
  if (c.activation == Activation::Swish)
    throw InputError("training does not support activation \"swish\" (only relu and gelu)");
  if (c.positions == transformer::Positions::SinusoidalHalves)
    throw InputError("training does not support positions \"sinusoidal_halves\" (only sinusoidal and learned)");
  if (!shared.suppress_tokens.empty())
    throw InputError("training does not support a model with suppress_tokens (its model file would lose them)");
}

TransformerParams TransformerParams::zeros(const ModelConfig& shared, const transformer::Config& c, int src_vocab_size,
                                            int tgt_vocab_size) {
  TransformerParams p;
  p.shared = shared;
  p.config = c;
  p.src_vocab_size = src_vocab_size;
  p.tgt_vocab_size = tgt_vocab_size;
  const int d = c.d_model;
  const float eps = static_cast<float>(c.layer_norm_eps);
  transformer::Weights& w = p.weights;
  w.shared_embeddings = shared.shared_embeddings;
  w.tied_output = c.tied_output;
  w.src_embed = ops::WeightMatrix::plain(Matrix::Zero(src_vocab_size, d));
  if (!shared.shared_embeddings) w.tgt_embed_ = ops::WeightMatrix::plain(Matrix::Zero(tgt_vocab_size, d));
  if (c.positions == transformer::Positions::Learned) {
    w.encoder_positions = Matrix::Zero(shared.max_positions, d);
    w.decoder_positions = Matrix::Zero(shared.max_positions, d);
  } else {
    w.encoder_positions = w.decoder_positions = c.positions == transformer::Positions::Sinusoidal
                                                    ? sinusoidal_positions(shared.max_positions, d)
                                                    : sinusoidal_halves_positions(shared.max_positions, d);
  }
  for (int i = 0; i < c.n_encoder_layers; ++i)
    w.encoder_layers.push_back({attention_zeros(d, c.n_heads), norm_zeros(d, eps), ffn_zeros(d, c.d_ff, c.activation),
                                norm_zeros(d, eps), c.norm});
  for (int i = 0; i < c.n_decoder_layers; ++i)
    w.decoder_layers.push_back({attention_zeros(d, c.n_heads), norm_zeros(d, eps), attention_zeros(d, c.n_heads),
                                norm_zeros(d, eps), ffn_zeros(d, c.d_ff, c.activation), norm_zeros(d, eps), c.norm});
  if (c.norm == NormPosition::Pre) {
    w.encoder_final_norm = norm_zeros(d, eps);
    w.decoder_final_norm = norm_zeros(d, eps);
  }
  if (!c.tied_output) w.output_weight_ = ops::WeightMatrix::plain(Matrix::Zero(tgt_vocab_size, d));
  w.output_bias = RowVector::Zero(tgt_vocab_size);
  return p;
}

std::vector<TransformerParams::Named> TransformerParams::tensors() {
  transformer::Weights& w = weights;
  std::vector<Named> out;
  out.push_back({"src_embed.weight", w.src_embed.plain_matrix(), false});
  if (!shared.shared_embeddings) out.push_back({"tgt_embed.weight", w.tgt_embed_.plain_matrix(), false});
  if (config.positions == transformer::Positions::Learned) {
    out.push_back({"encoder.pos_embed.weight", w.encoder_positions, false});
    out.push_back({"decoder.pos_embed.weight", w.decoder_positions, false});
  }
  for (std::size_t i = 0; i < w.encoder_layers.size(); ++i)
    add_tensors(out, "encoder.layers." + std::to_string(i), w.encoder_layers[i]);
  for (std::size_t i = 0; i < w.decoder_layers.size(); ++i)
    add_tensors(out, "decoder.layers." + std::to_string(i), w.decoder_layers[i]);
  if (config.norm == NormPosition::Pre) {
    add_tensors(out, "encoder.final_norm", w.encoder_final_norm);
    add_tensors(out, "decoder.final_norm", w.decoder_final_norm);
  }
  if (!config.tied_output) out.push_back({"output.weight", w.output_weight_.plain_matrix(), false});
  out.push_back({"output.bias", w.output_bias, true});
  sort_by_name(out);
  return out;
}

void TransformerParams::set_zero() {
  for (Named& t : tensors()) t.tensor->setZero();
}

}  // namespace attnscope::train
