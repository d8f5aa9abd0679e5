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
#include "io/safetensors.h"
#include "layers/layer_stack.h"
#include "model/differentiable.h"
#include "model/example.h"
#include "model/model.h"

namespace attnscope::train {

// The forward from input embeddings (embed[id] · embedding_scale of every packed row; positions
// and dropout added inside) to the logits, keeping what backward needs until the next forward.
class DecoderOnlyPass {
 public:
  explicit DecoderOnlyPass(const DecoderOnlyParams& params);  // kept by reference
  // inputs [T, d], the sentences' rows given by their lengths. Returns the logits [T, V].
  Matrix forward(const Matrix& inputs, const std::vector<int>& lengths, float dropout, Random* random);
  // The gradient at the inputs of Σ d_logits ∘ logits; the parameters' are added into `grads`
  // (nullptr: none computed), the token embedding's as the output projection's only when tied.
  Matrix backward(const Matrix& d_logits, DecoderOnlyParams* grads);

 private:
  Stack<EncoderLayerParams> stack() const;

  const DecoderOnlyParams& params_;
  LayerSettings settings_;
  Matrix sinusoids_;  // sinusoidal positions (empty when learned)
  StackRows rows_;
  StackCache cache_;
  Matrix out_;  // [T, d] input of the output projection
};

// Forward and backward of loss_sum / tokens, as the transformer's (models/train/train.py `train_lm`).
LossResult loss_and_gradients(const DecoderOnlyParams& params, const std::vector<Example>& batch,
                              const LossOptions& options, Random* random, DecoderOnlyParams& grads);

// The decoder-only model as attribution differentiates it: Tokens.source empty, target the context;
// from a model file's bytes (ModelFileError on a broken file).
std::unique_ptr<Differentiable> make_differentiable(DecoderOnlyParams params);
// `model`'s gradient pass, its weights read from `file` (the one it was loaded from).
std::unique_ptr<Differentiable> decoder_only_differentiable(std::shared_ptr<const Model> model, const SafetensorsFile& file);

}  // namespace attnscope::train
