#include "model/trace.h"

#include <algorithm>

namespace attnscope {

Tensor pack_attention(const std::vector<std::vector<Matrix>>& per_layer, bool squeeze_rows) {
  if (per_layer.empty() || per_layer[0].empty()) return Tensor();
  const Matrix& first = per_layer[0][0];
  const int layers = static_cast<int>(per_layer.size()), heads = static_cast<int>(per_layer[0].size());
  const int rows = static_cast<int>(first.rows()), cols = static_cast<int>(first.cols());
  Tensor t(squeeze_rows ? std::vector<int>{layers, heads, cols} : std::vector<int>{layers, heads, rows, cols});
  float* out = t.data.data();
  for (const auto& layer : per_layer)
    for (const Matrix& head : layer) out = std::copy(head.data(), head.data() + head.size(), out);
  return t;
}

}  // namespace attnscope
