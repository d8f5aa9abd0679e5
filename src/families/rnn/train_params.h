#pragma once
// The trainable parameters of the RNN family (src/families/rnn/, models/FORMAT.md "The RNN
// family"): its inference weights (rnn.h), with the model file's tensor names. Gradients and
// Adam's moments have the same layout, so they are RnnParams too. The config is the family's own
// (rnn::Config) plus the fields every family shares (ModelConfig: max_positions,
// shared_embeddings, src_append_eos, special).
#include <cstdint>
#include <vector>

#include "core/tensor_list.h"
#include "families/rnn/rnn.h"
#include "model/config.h"

namespace attnscope::train {

struct RnnParams {
  ModelConfig shared;  // the fields every family has (family_json: this config as the file holds it)
  rnn::Config config;
  int src_vocab_size = 0, tgt_vocab_size = 0;
  // The inference model's own weights (rnn.h), every one in the plain binary32 layout training
  // updates in place: tgt_embed_ is empty when shared_embeddings.
  rnn::Weights weights;

  // The table the decoder reads (src_embed when shared_embeddings), to add gradient rows into.
  ops::WeightMatrix& target_embedding() { return weights.shared_embeddings ? weights.src_embed : weights.tgt_embed_; }

  // All zeros, every tensor in its file shape (exactly the tensors the loader reads).
  static RnnParams zeros(const ModelConfig& shared, int src_vocab_size, int tgt_vocab_size);
  RnnParams zeros_like() const { return zeros(shared, src_vocab_size, tgt_vocab_size); }
  // Every tensor of the model file with its name, sorted by name (the file's order). `vector`: a
  // 1-D tensor in the file (a cell's or a dense layer's bias), held as a RowVector here.
  TensorList tensors();
  void set_zero();
};

}  // namespace attnscope::train
