#pragma once
// The trainable parameters of the transformer family, one Matrix per tensor of the model file
// (models/FORMAT.md), under the same names. Gradients and Adam's moments have the same layout,
// so they are TransformerParams too, and every optimiser loop walks tensors() of each in step.
//
// Training depends on src/model/ only through the file format: tensor names, the config
// JSON (ModelConfig) and Model::load_bytes for validation; never on the Model struct's fields.
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/tensor_list.h"
#include "layers/params.h"
#include "model/config.h"

namespace attnscope::train {

// Throws InputError on a transformer config the model-file writer cannot write back (swish,
// sinusoidal_halves, suppress_tokens); the gradient pass runs them all.
void check_trainable(const ModelConfig& config);

struct TransformerParams {
  ModelConfig config;
  int src_vocab_size = 0, tgt_vocab_size = 0;

  Matrix src_embed;                  // [V_src, d]; also the target embedding when shared_embeddings
  Matrix tgt_embed;                  // [V_tgt, d]; empty when shared_embeddings
  Matrix encoder_pos, decoder_pos;   // [max_positions, d]; learned positions only (else empty)
  std::vector<EncoderLayerParams> encoder;
  std::vector<DecoderLayerParams> decoder;
  NormParams encoder_final_norm, decoder_final_norm;  // pre-norm only (else empty)
  Matrix output_weight;              // [V_tgt, d]; empty when tied_output
  Matrix output_bias;                // [1, V_tgt]

  Matrix& target_embedding() { return config.shared_embeddings ? src_embed : tgt_embed; }
  const Matrix& target_embedding() const { return config.shared_embeddings ? src_embed : tgt_embed; }
  Matrix& output_projection() { return config.tied_output ? target_embedding() : output_weight; }
  const Matrix& output_projection() const { return config.tied_output ? target_embedding() : output_weight; }

  // All zeros, every tensor in its file shape (what a gradient or an Adam moment starts as).
  static TransformerParams zeros(const ModelConfig& config, int src_vocab_size, int tgt_vocab_size);
  TransformerParams zeros_like() const { return zeros(config, src_vocab_size, tgt_vocab_size); }

  // Every tensor of the model file with its name, sorted by name (the order the file stores
  // them in). `vector`: a 1-D tensor in the file, held as a [1, n] Matrix here.
  using Named = NamedTensor;
  std::vector<Named> tensors();

  void set_zero();
};

}  // namespace attnscope::train
