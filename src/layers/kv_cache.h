#pragma once
// Keys and values of the positions decoded so far, one row per position. Capacity grows by
// doubling so that appending is amortised O(d); truncating (stepping back) is O(1).
#include "core/tensor.h"

namespace attnscope {

class KVCache {
 public:
  // k_row, v_row: [1, d] (a row of a batch binds without a copy).
  void append(const Eigen::Ref<const Matrix>& k_row, const Eigen::Ref<const Matrix>& v_row) {
    if (length_ == k_.rows()) reserve(std::max<Eigen::Index>(8, 2 * k_.rows()), k_row.cols());
    k_.row(length_) = k_row.row(0);
    v_.row(length_) = v_row.row(0);
    ++length_;
  }
  void truncate(int length) { length_ = std::min<Eigen::Index>(length_, std::max(length, 0)); }
  int length() const { return static_cast<int>(length_); }
  auto keys() const { return k_.topRows(length_); }
  auto values() const { return v_.topRows(length_); }

 private:
  void reserve(Eigen::Index rows, Eigen::Index cols) {
    k_.conservativeResize(rows, cols);
    v_.conservativeResize(rows, cols);
  }
  Matrix k_, v_;
  Eigen::Index length_ = 0;
};

}  // namespace attnscope
