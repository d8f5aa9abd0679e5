#pragma once
// The transformer's training pass: a teacher-forced forward over a batch of sentence pairs that
// keeps what backward needs, label-smoothed cross-entropy, and the backward pass layer by layer.
//
// Batches are packed, not padded: the rows of every matrix are the real tokens of the batch,
// sentence after sentence, and each sentence attends only within its own rows. That is exactly
// what PyTorch computes with padding masks (models/reference/attnscope_ref/model.py: masked keys get weight
// 0, padded queries and <pad> targets do not reach the loss), without computing the padding.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "families/transformer/train_params.h"
#include "layers/layer_stack.h"
#include "model/differentiable.h"
#include "model/example.h"
#include "model/model.h"

namespace attnscope::train {

// The forward from input embeddings (embed[id] · embedding_scale of every packed row; positions
// and dropout added inside) to the logits, keeping what backward needs until the next forward.
// Training and attribution (model/differentiable.h) both run it.
class TransformerPass {
 public:
  // Runs on `weights` (kept by reference): a loaded model's, in whatever form the load keeps
  // them (attribution), or training's plain ones.
  TransformerPass(const transformer::Config& config, const transformer::Weights& weights);
  // inputs.source [S, d], inputs.target [T, d], the sentences' rows given by their lengths.
  // Returns the logits [T, V], row t predicting the token after target row t.
  Matrix forward(const InputEmbeddings& inputs, const std::vector<int>& source_lengths,
                 const std::vector<int>& target_lengths, float dropout, Random* random);
  // The gradients at the inputs of Σ d_logits ∘ logits; the parameters' are added into `grads`
  // (nullptr: none computed). The embedding tables' gradients are the caller's (it knows the ids).
  InputEmbeddings backward(const Matrix& d_logits, TransformerParams* grads);

 private:
  Stack<EncoderLayer> encoder() const;
  Stack<DecoderLayer> decoder() const;

  const transformer::Config& config_;
  const transformer::Weights& weights_;
  StackRows source_rows_, target_rows_;
  StackCache encoder_, decoder_;
  Matrix memory_;       // [S, d] encoder output (after final_norm in pre)
  Matrix decoder_out_;  // [T, d] input of the output projection
};

// Forward and backward of loss_sum / tokens (models/train/train.py: F.cross_entropy(..., reduction="sum")
// then `/ n`). The gradients are added into `grads` (same layout as `params`; zero it first).
// `random` draws the dropout masks (nullptr or dropout 0: none).
LossResult loss_and_gradients(const TransformerParams& params, const std::vector<Example>& batch,
                              const LossOptions& options, Random* random, TransformerParams& grads);

// The transformer as attribution differentiates it: one sentence pair through TransformerPass, on
// `model`'s own weights (kept alive by the pass).
std::unique_ptr<Differentiable> transformer_differentiable(std::shared_ptr<const Model> model);

}  // namespace attnscope::train
