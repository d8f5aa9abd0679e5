#pragma once
// The trainable parameters of the transformer family: its inference weights (transformer.h), with
// the model file's tensor names (models/FORMAT.md). Gradients and Adam's moments have the same
// layout, so they are TransformerParams too, and every optimiser loop walks tensors() of each in
// step.
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/tensor_list.h"
#include "families/transformer/transformer.h"
#include "layers/params.h"
#include "model/config.h"

namespace attnscope::train {

// Throws InputError on a transformer config the model-file writer cannot write back (swish,
// sinusoidal_halves, suppress_tokens); the gradient pass runs them all.
void check_trainable(const ModelConfig& shared, const transformer::Config& config);

struct TransformerParams {
  ModelConfig shared;  // max_positions, shared_embeddings, special tokens
  transformer::Config config;
  int src_vocab_size = 0, tgt_vocab_size = 0;
  // The inference model's own weights (transformer.h), every one in the plain binary32 layout
  // training updates in place: output_weight_ and tgt_embed_ are empty when tied or shared,
  // and the positions are the learned table or the computed sinusoids (never a file tensor).
  transformer::Weights weights;

  // All zeros, every tensor in its file shape (what a gradient or an Adam moment starts as).
  static TransformerParams zeros(const ModelConfig& shared, const transformer::Config& config, int src_vocab_size,
                                 int tgt_vocab_size);
  TransformerParams zeros_like() const { return zeros(shared, config, src_vocab_size, tgt_vocab_size); }

  // Every tensor of the model file with its name, sorted by name (the order the file stores
  // them in). `vector`: a 1-D tensor in the file, held as [1, n] here.
  using Named = NamedTensor;
  std::vector<Named> tensors();

  void set_zero();
};

}  // namespace attnscope::train
