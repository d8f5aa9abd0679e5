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
#include "layers/layer_stack.h"
#include "model/differentiable.h"
#include "model/model.h"

namespace attnscope::train {

// The forward from the input embeddings of one sentence (or "A [SEP] B" pair) with its token types,
// keeping what backward needs until the next forward.
class BertPass {
 public:
  // Runs on `weights` (kept by reference): the loaded model's, in whatever form the load keeps them.
  BertPass(const bert::Config& config, const bert::Weights& weights);
  // inputs [S, d], segments [S] (token types). Returns the logits [S, V].
  Matrix forward(const Matrix& inputs, const std::vector<int>& segments);
  // The gradient at the inputs of Σ d_logits ∘ logits.
  Matrix backward(const Matrix& d_logits) const;

 private:
  const bert::Config& config_;
  const bert::Weights& weights_;
  StackRows rows_;
  NormCache embed_norm_;
  std::vector<LayerCache> layers_;
  Matrix hidden_;     // [S, d] the last layer's output, input of the MLM transform
  Matrix transform_;  // [S, d] before the GELU
  NormCache mlm_norm_;
  Matrix normed_;     // [S, d] input of the tied decoder
};

// `model`'s gradient pass on its own weights (kept alive by the pass): it reads Tokens.source
// ([CLS] … [SEP], token types as the engine's encoder gives them) and no target.
std::unique_ptr<Differentiable> bert_differentiable(std::shared_ptr<const Model> model);

}  // namespace attnscope::train
