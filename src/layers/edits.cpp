#include "layers/edits.h"

#include <cmath>

namespace attnscope {

RowVector HeadEdit::weights_for(int query, int keys) const {
  RowVector w = RowVector::Zero(keys);
  switch (pattern) {
    case Pattern::Uniform:
      w.setConstant(1.0f / keys);
      break;
    case Pattern::Beginning: {
      // The first three keys take 90% (in the ratio 5 : 2.5 : 1.5), the others share 10%.
      const float head[3] = {0.5f, 0.25f, 0.15f};
      const int n = std::min(keys, 3);
      float front = 0.0f;
      for (int i = 0; i < n; ++i) front += head[i];
      const float rest = keys > 3 ? 0.1f / (keys - 3) : 0.0f;
      const float scale = keys > 3 ? 1.0f : 1.0f / front;
      for (int i = 0; i < keys; ++i) w[i] = i < 3 ? head[i] * scale : rest;
      break;
    }
    case Pattern::End:
      w[keys - 1] = 1.0f;
      break;
    case Pattern::Custom: {
      if (custom.empty()) throw InputError("custom attention needs at least one row of weights");
      const size_t r = std::min<size_t>(static_cast<size_t>(query), custom.size() - 1);
      const std::vector<float>& row = custom[r];
      if (static_cast<int>(row.size()) != keys)
        throw InputError("custom attention row " + std::to_string(r) + " has " + std::to_string(row.size()) +
                         " weights but query " + std::to_string(query) + " attends to " + std::to_string(keys) +
                         " positions");
      float sum = 0.0f;
      for (float x : row) {
        if (!(x >= 0.0f) || !std::isfinite(x)) throw InputError("custom attention row " + std::to_string(r) + ": weights must be finite and >= 0");
        sum += x;
      }
      if (!(sum > 0.0f)) throw InputError("custom attention row " + std::to_string(r) + ": weights must not all be zero");
      for (int i = 0; i < keys; ++i) w[i] = row[i] / sum;
      break;
    }
  }
  return w;
}

}  // namespace attnscope
