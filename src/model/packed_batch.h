#pragma once
// The target side of a batch packed for a training pass: every sentence's input rows one after the
// other, and the gold token each row predicts (teacher forcing: tgt[0..n-2] read, tgt[1..n-1] predicted).
#include <vector>

#include "model/example.h"

namespace attnscope::train {

struct PackedTargets {
  std::vector<int> ids;      // the decoder's inputs, packed
  std::vector<int> gold;     // per packed row, the token it predicts
  std::vector<int> lengths;  // rows of each sentence
};

// Throws InputError on a target of fewer than 2 tokens, one that reads more than max_positions,
// or a gold id outside [0, vocab_size).
PackedTargets pack_targets(const std::vector<Example>& batch, int max_positions, int vocab_size);

}  // namespace attnscope::train
