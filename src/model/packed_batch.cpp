#include "model/packed_batch.h"

#include <string>

#include "core/error.h"

namespace attnscope::train {

PackedTargets pack_targets(const std::vector<Example>& batch, int max_positions, int vocab_size) {
  PackedTargets out;
  for (const Example& e : batch) {
    if (e.tgt.size() < 2) throw InputError("a training example needs a target of at least 2 tokens (<s> and one)");
    if (static_cast<int>(e.tgt.size()) - 1 > max_positions)
      throw InputError("a training pair is longer than max_positions = " + std::to_string(max_positions));
    out.lengths.push_back(static_cast<int>(e.tgt.size()) - 1);
    out.ids.insert(out.ids.end(), e.tgt.begin(), e.tgt.end() - 1);
    out.gold.insert(out.gold.end(), e.tgt.begin() + 1, e.tgt.end());
  }
  for (int id : out.gold)
    if (id < 0 || id >= vocab_size)
      throw InputError("target id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(vocab_size));
  return out;
}

}  // namespace attnscope::train
