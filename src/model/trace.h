#pragma once
// What a run hands out for the page to draw, captured during the forward pass so nothing is
// recomputed. Attention is a list indexed like the model's site table (model/sites.h): an
// encoder trace fills the sites computed once per source, a step trace those computed at each
// step, and leaves the others empty. Tensors are packed [layer][head][...]; named vectors are
// Eigen rows keyed as in tests/golden/README.md ("embedding", "layers.0.q", ...).
#include <vector>

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
  std::vector<Tensor> attention;  // [site]: [layer][head][source][source] for a once-per-source site
  NamedVectors vectors;
};

struct StepTrace {
  std::vector<Tensor> attention;  // [site]: [layer][head][keys] for a per-step site (self: t + 1 keys)
  NamedVectors vectors;
};

// The tensor of site `site` in a trace's list, or an empty one when it was not captured.
inline const Tensor& site_attention(const std::vector<Tensor>& attention, int site) {
  static const Tensor none;
  return site >= 0 && site < static_cast<int>(attention.size()) ? attention[site] : none;
}

// Copies per-layer, per-head [rows, cols] matrices into one [layer][head][rows][cols] tensor
// (the rows dimension is dropped when `squeeze_rows`, for single-position decoder steps).
Tensor pack_attention(const std::vector<std::vector<Matrix>>& per_layer, bool squeeze_rows);

}  // namespace attnscope
