#pragma once
// The trainable parameters of the RNN family (src/families/rnn/, models/FORMAT.md "The RNN
// family"), one Matrix per tensor of the model file under the same names; gradients have the same
// layout, so they are RnnParams too. The config is the family's own (rnn::Config) plus the fields
// every family shares (ModelConfig: max_positions, shared_embeddings, src_append_eos, special).
#include <cstdint>
#include <vector>

#include "core/tensor_list.h"
#include "families/rnn/rnn.h"
#include "model/config.h"

namespace attnscope::train {

// One PyTorch RNN cell, gates stacked in PyTorch's order (GRU r, z, n; LSTM i, f, g, o).
struct CellParams {
  Matrix weight_ih;  // [G·h, in]
  Matrix weight_hh;  // [G·h, h]
  Matrix bias_ih;    // [1, G·h]
  Matrix bias_hh;    // [1, G·h]
};

// A dense layer of the RNN's own (the bridge, the output layer): y = x Wᵀ + b.
struct DenseParams {
  Matrix weight;  // [out, in]
  Matrix bias;    // [1, out]
};

struct RnnParams {
  ModelConfig shared;  // the fields every family has (family_json: this config as the file holds it)
  rnn::Config config;
  int src_vocab_size = 0, tgt_vocab_size = 0;

  Matrix src_embed;                // [V_src, E]; also the target embedding when shared_embeddings
  Matrix tgt_embed;                // [V_tgt, E]; empty when shared_embeddings
  std::vector<CellParams> encoder;  // [layer · directions + direction]; input E (layer 0) or d_mem
  DenseParams bridge;              // [H, d_mem], [1, H]
  std::vector<CellParams> decoder;  // one per layer; layer 0 reads E + (d_mem | H if fed | 0)
  rnn::AttentionWeights attention;  // the family's own: its score, location and local-p tensors
  Matrix combine;                  // Luong W_c [H, d_mem + H]
  DenseParams output;              // [V_tgt, H] (Luong) or [V_tgt, H + d_mem], [1, V_tgt]

  Matrix& target_embedding() { return shared.shared_embeddings ? src_embed : tgt_embed; }
  const Matrix& target_embedding() const { return shared.shared_embeddings ? src_embed : tgt_embed; }

  // All zeros, every tensor in its file shape (exactly the tensors the loader reads).
  static RnnParams zeros(const ModelConfig& shared, int src_vocab_size, int tgt_vocab_size);
  RnnParams zeros_like() const { return zeros(shared, src_vocab_size, tgt_vocab_size); }
  // Every tensor of the model file with its name, sorted by name (the file's order).
  TensorList tensors();
  void set_zero();
};

}  // namespace attnscope::train
