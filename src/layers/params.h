#pragma once
// The trainable parameters of the layers every transformer-style family is made of (linear, layer
// norm, multi-head attention, FFN, encoder and decoder layers), one Matrix per tensor of the model
// file under the file's names. Gradients and Adam's moments have the same layout, so they are
// these structs too. The families' own parameter structs (families/<name>/train_params.h) hold them.
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/tensor_list.h"

namespace attnscope::train {

struct LinearParams {
  Matrix weight;  // [out, in] (PyTorch nn.Linear layout: y = x Wᵀ + b)
  Matrix bias;    // [1, out]
};

struct NormParams {
  Matrix gamma;  // [1, d]  (file: .weight)
  Matrix beta;   // [1, d]  (file: .bias)
};

struct AttentionParams {
  LinearParams q_proj, k_proj, v_proj, out_proj;  // each [d, d], [1, d]
};

struct FeedForwardParams {
  LinearParams fc1;  // [d_ff, d], [1, d_ff]
  LinearParams fc2;  // [d, d_ff], [1, d]
};

// All-zero blocks in their file shapes, and their tensors under a name prefix (e.g.
// "decoder.layers.0.self_attn"), for every family made of these blocks.
LinearParams linear_zeros(int out, int in);
NormParams norm_zeros(int d);
AttentionParams attention_zeros(int d);
FeedForwardParams ffn_zeros(int d, int d_ff);
void add_tensors(TensorList& out, const std::string& name, LinearParams& p);
void add_tensors(TensorList& out, const std::string& name, NormParams& p);
void add_tensors(TensorList& out, const std::string& name, AttentionParams& p);
void add_tensors(TensorList& out, const std::string& name, FeedForwardParams& p);
void sort_by_name(TensorList& tensors);  // the model file's order

struct EncoderLayerParams {
  AttentionParams self_attn;
  NormParams self_attn_norm;
  FeedForwardParams ffn;
  NormParams ffn_norm;
};

// An encoder layer's tensors under `name` ("encoder.layers.0"): self_attn, self_attn_norm and,
// unless its FFN is empty (an attention-only decoder-only layer), ffn and ffn_norm.
void add_tensors(TensorList& out, const std::string& name, EncoderLayerParams& p);

struct DecoderLayerParams {
  AttentionParams self_attn;
  NormParams self_attn_norm;
  AttentionParams cross_attn;
  NormParams cross_attn_norm;
  FeedForwardParams ffn;
  NormParams ffn_norm;
};

}  // namespace attnscope::train
