#pragma once
// What every family's training pass takes and gives: a batch of sentence pairs, the loss's
// options, and the summed loss (layers/loss.h). The family-independent half of a backward pass's
// interface (families/<name>/backward.h), so that the trainer's seam (model/trainable.h) names no
// family.
#include <vector>

#include "layers/loss.h"

namespace attnscope::train {

struct Example {
  std::vector<int> src;  // source ids, including </s> when the model appends it
  std::vector<int> tgt;  // <s> target ids </s>: the decoder reads tgt[0..n-2] and predicts tgt[1..n-1]
};

struct LossOptions {
  float label_smoothing = 0.0f;  // F.cross_entropy(label_smoothing=ε): (1-ε)·NLL + ε·mean_j(-log p_j)
  float dropout = 0.0f;          // as the reference's nn.Dropout: embeddings and every sub-layer output
};

}  // namespace attnscope::train
