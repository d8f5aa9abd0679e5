#pragma once
// The transformer's training pass: a teacher-forced forward over a batch of sentence pairs that
// keeps what backward needs, label-smoothed cross-entropy, and the backward pass layer by layer.
//
// Batches are packed, not padded: the rows of every matrix are the real tokens of the batch,
// sentence after sentence, and each sentence attends only within its own rows. That is exactly
// what PyTorch computes with padding masks (models/reference/attnscope_ref/model.py: masked keys get weight
// 0, padded queries and <pad> targets do not reach the loss), without computing the padding.
#include <vector>

#include "train/blocks.h"
#include "train/loss.h"

namespace attnscope::train {

// Forward and backward of loss_sum / tokens (models/train/train.py: F.cross_entropy(..., reduction="sum")
// then `/ n`). The gradients are added into `grads` (same layout as `params`; zero it first).
// `random` draws the dropout masks (nullptr or dropout 0: none).
LossResult loss_and_gradients(const TransformerParams& params, const std::vector<Example>& batch,
                              const LossOptions& options, Random* random, TransformerParams& grads);

// The sinusoidal table of models/FORMAT.md: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...),
// computed in double and rounded once to float.
Matrix sinusoidal_table(int positions, int d);

}  // namespace attnscope::train
