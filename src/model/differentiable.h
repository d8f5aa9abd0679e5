#pragma once
// A model's forward pass for one sentence that keeps what its backward needs, seen from outside
// training: attribution (analysis/attribution.h) differentiates a chosen score with respect to
// the input embeddings through it. Each family implements it next to its training pass, with the
// same forward and the same backward (never a second copy of either), and registers it
// (model/registry.h); train/differentiable.h finds a file's.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/tensor.h"

namespace attnscope::train {

// One sentence as the model reads it.
struct Tokens {
  // Encoder input ids: translation, as encoded (with </s> when the model appends it);
  // encoder-only, the whole input. Empty for a decoder-only model.
  std::vector<int> source;
  // Decoder input ids: <bos> then the target prefix (translation), or the prompt as the model
  // reads it (<bos> first where it reads one) and what was generated (decoder-only). Empty for an
  // encoder-only model.
  std::vector<int> target;
};

// The token embeddings attribution scores: one row per input token, the token's embedding as
// the first layer receives it before positions (or token types) are added, i.e. embed[id] times
// the model's embedding scale.
struct InputEmbeddings {
  Matrix source;  // [source.size(), d]  (empty when the model has no source)
  Matrix target;  // [target.size(), d]  (empty when the model has no target)
};

class Differentiable {
 public:
  virtual ~Differentiable() = default;

  // The input embeddings of these tokens (InputError on an id outside the vocabulary).
  virtual InputEmbeddings embed(const Tokens& tokens) const = 0;

  // The forward from the given input embeddings (positions added inside, no dropout): the logits
  // of every output row. Translation and decoder-only: [target.size(), V], row t predicting
  // target[t + 1]; encoder-only: [source.size(), V], row s the prediction at position s.
  // Keeps what backward needs until the next forward.
  virtual Matrix forward(const Tokens& tokens, const InputEmbeddings& inputs) = 0;

  // The gradients of Σ d_logits ∘ logits (the last forward's logits) with respect to that
  // forward's input embeddings. No parameter gradients are computed.
  virtual InputEmbeddings backward(const Matrix& d_logits) = 0;

  virtual int vocab_size() const = 0;
  // The model's weights, counted one by one: what the cost of a pass grows with
  // (analysis/attribution_cost.h).
  virtual std::size_t parameter_count() const = 0;
};

}  // namespace attnscope::train
