#pragma once
// BERT's gradient pass (src/families/bert/, models/FORMAT.md "The BERT family"): the forward from
// input embeddings to the masked-LM logits at every position, and its backward to those inputs,
// for attribution (model/differentiable.h). No training: no parameter gradients.
//
//   x      = LN_embed(inputs + E_position[0..S) + E_segment[segments])     (inputs: E_token[id])
//   x      = post-norm encoder layers with GELU (layer_stack.h, not causal)
//   logits = LN_mlm(gelu(x W_tᵀ + b_t)) E_tokenᵀ + mlm.bias
#include <cstdint>
#include <memory>
#include <vector>

#include "families/bert/bert.h"
#include "io/safetensors.h"
#include "layers/layer_stack.h"
#include "model/differentiable.h"
#include "model/model.h"

namespace attnscope::train {

// The tensors the masked-LM logits read (the pooler is not among them), as the file names them.
struct BertParams {
  bert::Config config;
  int vocab_size = 0, max_positions = 0;
  Matrix token_embed;     // [V, d]; also the MLM head's decoder (tied)
  Matrix position_embed;  // [max_positions, d]
  Matrix segment_embed;   // [n_segments, d]
  NormParams embed_norm;
  std::vector<EncoderLayerParams> layers;
  LinearParams mlm_transform;  // [d, d]
  NormParams mlm_norm;
  Matrix mlm_bias;  // [1, V]

  static BertParams zeros(const bert::Config& config, int vocab_size, int max_positions);
  TensorList tensors();  // sorted by name
};

// The forward from the input embeddings of one sentence (or "A [SEP] B" pair) with its token types,
// keeping what backward needs until the next forward.
class BertPass {
 public:
  explicit BertPass(const BertParams& params);  // kept by reference
  // inputs [S, d], segments [S] (token types). Returns the logits [S, V].
  Matrix forward(const Matrix& inputs, const std::vector<int>& segments);
  // The gradient at the inputs of Σ d_logits ∘ logits.
  Matrix backward(const Matrix& d_logits) const;

 private:
  const BertParams& params_;
  LayerSettings settings_;
  StackRows rows_;
  NormCache embed_norm_;
  std::vector<LayerCache> layers_;
  Matrix hidden_;     // [S, d] the last layer's output, input of the MLM transform
  Matrix transform_;  // [S, d] before the GELU
  NormCache mlm_norm_;
  Matrix normed_;     // [S, d] input of the tied decoder
};

// Validates the bytes with Model::load_bytes and reads a BERT's tensors; its Differentiable reads
// Tokens.source ([CLS] … [SEP], token types as the engine's encoder gives them) and no target.
// `model`'s gradient pass, its weights read from `file` (the one it was loaded from).
std::unique_ptr<Differentiable> bert_differentiable(std::shared_ptr<const Model> model, const SafetensorsFile& file);

}  // namespace attnscope::train
