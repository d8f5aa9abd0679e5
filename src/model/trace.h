#pragma once
// What a run hands out for the page to draw, captured during the forward pass so nothing is
// recomputed. Attention tensors are packed [layer][head][...]; named vectors are Eigen rows
// keyed as in tests/golden/README.md ("embedding", "layers.0.q", ...).
#include "core/tensor.h"
#include "layers/probe.h"

namespace attnscope {

struct Capture {
  bool attention = false;  // attention weights of every layer and head
  bool vectors = false;    // named intermediate vectors (embeddings, q/k/v, FFN hidden, ...)
  bool logits = false;     // each step's logits and log-probabilities
  bool any() const { return attention || vectors; }  // what the forward pass itself records
};

struct EncoderTrace {
  Tensor self_attn;  // [layer][head][source][source]
  NamedVectors vectors;
};

struct StepTrace {
  Tensor self_attn;   // [layer][head][t + 1]: how position t attends to positions 0..t
  Tensor cross_attn;  // [layer][head][source]
  NamedVectors vectors;
};

// Copies per-layer, per-head [rows, cols] matrices into one [layer][head][rows][cols] tensor
// (the rows dimension is dropped when `squeeze_rows`, for single-position decoder steps).
Tensor pack_attention(const std::vector<std::vector<Matrix>>& per_layer, bool squeeze_rows);

}  // namespace attnscope
