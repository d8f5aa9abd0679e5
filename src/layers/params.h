#pragma once
// The tensors of the layers every transformer-style family is made of (layers/basic.h,
// attention.h, feed_forward.h, encoder_layer.h, decoder_layer.h), seen by training: all-zero
// layers in their file shapes, every weight in the plain binary32 layout that training updates
// in place, and each layer's tensors under the file's names. Gradients and Adam's moments are
// the same structs: one weight type for inference, training and attribution.
#include <cstddef>
#include <string>

#include "core/tensor_list.h"
#include "layers/decoder_layer.h"
#include "layers/encoder_layer.h"

namespace attnscope::train {

Linear linear_zeros(int out, int in);
LayerNorm norm_zeros(int d, float eps);
MultiHeadAttention attention_zeros(int d, int n_heads);
FeedForward ffn_zeros(int d, int d_ff, Activation activation);  // d_ff = 0: no FFN (empty fc1, fc2)

// A layer's tensors under a name prefix ("decoder.layers.0.self_attn"). An encoder layer whose
// FFN is empty (an attention-only decoder-only layer) has no ffn and ffn_norm tensors.
void add_tensors(TensorList& out, const std::string& name, Linear& p);
void add_tensors(TensorList& out, const std::string& name, LayerNorm& p);
void add_tensors(TensorList& out, const std::string& name, MultiHeadAttention& p);
void add_tensors(TensorList& out, const std::string& name, FeedForward& p);
void add_tensors(TensorList& out, const std::string& name, EncoderLayer& p);
void add_tensors(TensorList& out, const std::string& name, DecoderLayer& p);
void sort_by_name(TensorList& tensors);  // the model file's order

// The values a layer holds, its weights in whatever form (what a pass's cost grows with).
inline std::size_t count_values(const ops::WeightMatrix& w) {
  return static_cast<std::size_t>(w.rows()) * static_cast<std::size_t>(w.cols());
}
inline std::size_t count_values(const RowVector& v) { return static_cast<std::size_t>(v.size()); }
std::size_t count_values(const Linear& p);
std::size_t count_values(const LayerNorm& p);
std::size_t count_values(const MultiHeadAttention& p);
std::size_t count_values(const FeedForward& p);
std::size_t count_values(const EncoderLayer& p);  // its FFN only where it has one
std::size_t count_values(const DecoderLayer& p);

// Whether a layer has an FFN: an attention-only layer's is empty.
inline bool has_ffn(const FeedForward& ffn) { return !ffn.empty(); }

}  // namespace attnscope::train
