#pragma once
// The trainable parameters of the decoder-only family (src/families/decoder_only/, models/FORMAT.md
// "The decoder-only family"), one Matrix per tensor of the model file under the same names;
// gradients and Adam's moments have the same layout. Its layers are the transformer's encoder
// layers run causally (EncoderLayerParams), their FFN empty when d_ff = 0 (attention only).
#include <vector>

#include "core/tensor_list.h"
#include "families/decoder_only/decoder_only.h"
#include "layers/params.h"
#include "model/config.h"

namespace attnscope::train {

struct DecoderOnlyParams {
  ModelConfig shared;  // max_positions, special tokens; family_json: the config as the file holds it
  decoder_only::Config config;
  int vocab_size = 0;

  Matrix token_embed;     // [V, d]; also the output projection when tied_output
  Matrix position_embed;  // [max_positions, d]; learned positions only (else empty)
  std::vector<EncoderLayerParams> layers;
  NormParams final_norm;  // pre-norm only (else empty)
  Matrix output_weight;   // [V, d]; empty when tied_output
  Matrix output_bias;     // [1, V]

  Matrix& output_projection() { return config.tied_output ? token_embed : output_weight; }
  const Matrix& output_projection() const { return config.tied_output ? token_embed : output_weight; }

  // All zeros, every tensor in its file shape (exactly the tensors the loader reads). Throws
  // ModelFileError on a config the family refuses.
  static DecoderOnlyParams zeros(const ModelConfig& shared, int vocab_size);
  DecoderOnlyParams zeros_like() const { return zeros(shared, vocab_size); }
  TensorList tensors();  // sorted by name (the file's order)
  void set_zero();
};

}  // namespace attnscope::train
