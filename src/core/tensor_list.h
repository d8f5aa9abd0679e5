#pragma once
// A family's trainable tensors as one flat list, in model-file order: what the optimiser, the
// clipping and the export walk over whatever the family (TransformerParams::tensors(),
// RnnParams::tensors()). Gradients and Adam's moments have the same layout as the parameters.
#include <new>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace attnscope::train {

// Where one tensor's values live, seen as a Matrix: a Matrix, a layer's RowVector bias or a
// weight matrix's plain layout, all owned by the parameter struct. `tensor->` and `*tensor`
// reach the values. Copying a TensorRef copies where it points, never the values (an
// Eigen::Map's own assignment would copy values, so sorting a list would scramble it).
class TensorRef {
 public:
  TensorRef(float* data, Eigen::Index rows, Eigen::Index cols) : map_(data, rows, cols) {}
  TensorRef(Matrix& m) : TensorRef(m.data(), m.rows(), m.cols()) {}        // NOLINT: a view
  TensorRef(RowVector& v) : TensorRef(v.data(), 1, v.size()) {}            // NOLINT: a view
  TensorRef(const TensorRef& o) : TensorRef(o.map_.data(), o.map_.rows(), o.map_.cols()) {}
  TensorRef& operator=(const TensorRef& o) {
    new (&map_) Eigen::Map<Matrix>(o.map_.data(), o.map_.rows(), o.map_.cols());
    return *this;
  }
  Eigen::Map<Matrix>* operator->() const { return &map_; }
  Eigen::Map<Matrix>& operator*() const { return map_; }

 private:
  mutable Eigen::Map<Matrix> map_;
};

struct NamedTensor {
  std::string name;  // the model file's tensor name
  TensorRef tensor;  // owned by the parameter struct
  bool vector;       // a 1-D tensor in the file, held as [1, n] here
};
using TensorList = std::vector<NamedTensor>;

}  // namespace attnscope::train
