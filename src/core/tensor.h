#pragma once
// The two kinds of arrays the engine uses.
//  * Matrix: Eigen, row-major, one row per position (token), one column per feature.
//    All math is done on these.
//  * Tensor: a flat float array with a shape, for handing observations (attention maps,
//    logits) to callers without exposing Eigen.
#include <Eigen/Core>
#include <cstddef>
#include <string>
#include <vector>

#include "core/error.h"

namespace attnscope {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

struct Tensor {
  std::vector<int> shape;
  std::vector<float> data;  // row-major

  Tensor() = default;
  explicit Tensor(std::vector<int> dims) : shape(std::move(dims)) { data.assign(numel(), 0.0f); }

  std::size_t numel() const {
    std::size_t n = 1;
    for (int d : shape) n *= static_cast<std::size_t>(d);
    return shape.empty() ? 0 : n;
  }
  bool empty() const { return data.empty(); }

  // Offset of index `idx` (one entry per dimension), bounds-checked.
  std::size_t offset(const std::vector<int>& idx) const {
    if (idx.size() != shape.size())
      throw IndexError("tensor has " + std::to_string(shape.size()) + " dimensions, got " +
                       std::to_string(idx.size()) + " indices");
    std::size_t off = 0;
    for (std::size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < 0 || idx[i] >= shape[i])
        throw IndexError("index " + std::to_string(idx[i]) + " out of range [0, " +
                         std::to_string(shape[i]) + ") in dimension " + std::to_string(i));
      off = off * static_cast<std::size_t>(shape[i]) + static_cast<std::size_t>(idx[i]);
    }
    return off;
  }
  float at(const std::vector<int>& idx) const { return data[offset(idx)]; }
};

}  // namespace attnscope
