#pragma once
// The loss every training pass ends in: label-smoothed cross-entropy over logits, as
// models/train/train.py computes it, and its gradient with respect to the logits.
#include <vector>

#include "core/tensor.h"

namespace attnscope::train {

struct LossResult {
  double loss_sum = 0.0;  // Σ over target tokens of the smoothed loss (reduction="sum")
  int tokens = 0;         // n: target tokens that count (no <pad> among them by construction)
  double loss() const { return tokens ? loss_sum / tokens : 0.0; }
};

// Label-smoothed cross-entropy (F.cross_entropy(label_smoothing=ε)): (1-ε)·NLL + ε·mean_j(-log p_j)
// per row of logits [n, V] against gold[r]. Returns the sum over the rows; d_logits [n, V] gets
// ∂(sum / divide_by)/∂logits = (softmax - target distribution) / divide_by.
double smoothed_cross_entropy(const Matrix& logits, const std::vector<int>& gold, float eps, int divide_by,
                              Matrix& d_logits);

// The same over a batch's packed rows, divided by their count: loss_sum and tokens, and
// d_logits = ∂(loss_sum / tokens)/∂logits (models/train/train.py: reduction="sum", then `/ n`).
LossResult batch_loss(const Matrix& logits, const std::vector<int>& gold, float label_smoothing, Matrix& d_logits);

}  // namespace attnscope::train
