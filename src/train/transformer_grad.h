#pragma once
// The transformer's training pass: a teacher-forced forward over a batch of sentence pairs that
// keeps what backward needs, label-smoothed cross-entropy, and the backward pass layer by layer.
//
// Batches are packed, not padded: the rows of every matrix are the real tokens of the batch,
// sentence after sentence, and each sentence attends only within its own rows. That is exactly
// what PyTorch computes with padding masks (models/attnscope_ref/model.py: masked keys get weight
// 0, padded queries and <pad> targets do not reach the loss), without computing the padding.
#include <vector>

#include "train/blocks.h"

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

// Forward and backward of loss_sum / tokens (models/train.py: F.cross_entropy(..., reduction="sum")
// then `/ n`). The gradients are added into `grads` (same layout as `params`; zero it first).
// `random` draws the dropout masks (nullptr or dropout 0: none).
LossResult loss_and_gradients(const TransformerParams& params, const std::vector<Example>& batch,
                              const LossOptions& options, Random* random, TransformerParams& grads);

// The sinusoidal table of models/FORMAT.md: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...),
// computed in double and rounded once to float.
Matrix sinusoidal_table(int positions, int d);

}  // namespace attnscope::train
