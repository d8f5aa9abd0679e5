#pragma once
// The decoder-only family's training pass: the transformer's decoder stack without
// cross-attention (layer_stack.h, causal, the FFN optional), its final norm and output
// projection; next-token cross-entropy over packed sentences (see families/transformer/backward.h on packing).
// An Example's src is empty; its tgt is <bos>, the text, </s>.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "families/decoder_only/model_file.h"
#include "layers/layer_stack.h"
#include "model/differentiable.h"
#include "model/example.h"
#include "model/model.h"

namespace attnscope::train {

// The forward from input embeddings (embed[id] · embedding_scale of every packed row; positions
// and dropout added inside) to the logits, keeping what backward needs until the next forward.
class DecoderOnlyPass {
 public:
  // Runs on `weights` (kept by reference): a loaded model's, in whatever form the load keeps
  // them (attribution), or training's plain ones.
  DecoderOnlyPass(const decoder_only::Config& config, const decoder_only::Weights& weights);
  // inputs [T, d], the sentences' rows given by their lengths. Returns the logits [T, V].
  Matrix forward(const Matrix& inputs, const std::vector<int>& lengths, float dropout, Random* random);
  // The gradient at the inputs of Σ d_logits ∘ logits; the parameters' are added into `grads`
  // (nullptr: none computed), the token embedding's as the output projection's only when tied.
  Matrix backward(const Matrix& d_logits, DecoderOnlyParams* grads);

 private:
  Stack<decoder_only::Layer> stack() const;

  const decoder_only::Config& config_;
  const decoder_only::Weights& weights_;
  StackRows rows_;
  StackCache cache_;
  Matrix out_;  // [T, d] input of the output projection
};

// Forward and backward of loss_sum / tokens, as the transformer's (models/train/train.py `train_lm`).
LossResult loss_and_gradients(const DecoderOnlyParams& params, const std::vector<Example>& batch,
                              const LossOptions& options, Random* random, DecoderOnlyParams& grads);

// The decoder-only model as attribution differentiates it: Tokens.source empty, target the context;
// on `model`'s own weights (kept alive by the pass).
std::unique_ptr<Differentiable> decoder_only_differentiable(std::shared_ptr<const Model> model);

}  // namespace attnscope::train
