#include "model/trainable.h"

namespace attnscope::train {

Example Trainable::example(const std::vector<int>& source, const std::vector<int>& target) const {
  const ModelConfig& c = shared_config();
  Example e{source, {c.special.bos}};
  if (c.src_append_eos) e.src.push_back(c.special.eos);
  e.tgt.insert(e.tgt.end(), target.begin(), target.end());
  e.tgt.push_back(c.special.eos);
  return e;
}

}  // namespace attnscope::train
