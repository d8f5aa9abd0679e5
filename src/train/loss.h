#pragma once
// What every family's training pass takes and gives: a batch of sentence pairs, the loss's
// options, and the summed loss. The family-independent half of a backward pass's interface
// (transformer_grad.h, rnn_grad.h), so that the trainer's seam (trainable.h) names no family.
#include <vector>

namespace attnscope::train {

struct Example {
  std::vector<int> src;  // source ids, including </s> when the model appends it
  std::vector<int> tgt;  // <s> target ids </s>: the decoder reads tgt[0..n-2] and predicts tgt[1..n-1]
};

struct LossOptions {
  float label_smoothing = 0.0f;  // F.cross_entropy(label_smoothing=ε): (1-ε)·NLL + ε·mean_j(-log p_j)
  float dropout = 0.0f;          // as the reference's nn.Dropout: embeddings and every sub-layer output
};

struct LossResult {
  double loss_sum = 0.0;  // Σ over target tokens of the smoothed loss (reduction="sum")
  int tokens = 0;         // n: target tokens that count (no <pad> among them by construction)
  double loss() const { return tokens ? loss_sum / tokens : 0.0; }
};

}  // namespace attnscope::train
