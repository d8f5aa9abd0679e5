#pragma once
// One [out, in] weight matrix of an inference layer, held once, in the form its products read:
// the plain binary32 layout, the kernel's packed layout (binary32, or a 16-bit format for a
// matrix whose every value is one of it: binary16 as in a file stored as F16, bfloat16 as in
// one stored as BF16), or int8 when the int8 load option asks
// for it. A layer keeps exactly one of these; whoever reads a part of the matrix (an analysis'
// rows or columns, a head's slice) gets that part converted to binary32 and nothing more.
#include <cstddef>

#include "core/tensor.h"
#include "ops/gemm_int8.h"
#include "ops/gemm_simd.h"

namespace attnscope::ops {

using MatrixRef = Eigen::Ref<const Matrix>;

class WeightMatrix {
 public:
  enum class Form { Plain, Packed, Int8 };

  WeightMatrix() = default;
  // The plain row-major layout, the weight kept as it is (Eigen's path reads it directly).
  static WeightMatrix plain(Matrix weight);
  // The kernel's packed layout (simd::PackedWeights): in the 16-bit format `half` when it is
  // asked for and the weights allow it, else binary32. Either gives the plain layout's results
  // bit for bit.
  static WeightMatrix packed(const Matrix& weight, simd::HalfFormat half);
  // The same from a source of rows, a block at a time (simd::PackedWeights): a load that packs a
  // file's F16 or BF16 tensor into 16 bits never holds it whole in binary32.
  static WeightMatrix packed(const simd::PackedWeights::RowSource& rows, int out, int in, simd::HalfFormat half);
  // The packed 16-bit form of a row-major [out, in] matrix of finite `format` values, kept in the
  // buffer given (packed in place) where the kernel's 16-bit layout fits the width.
  static WeightMatrix packed_halves(std::vector<std::uint16_t> rows, int out, int in, simd::HalfFormat format);
  // int8 (approximate: only for the int8 load option) where the width has an int8 form, else
  // packed(weight, half).
  static WeightMatrix int8_or_packed(const Matrix& weight, simd::HalfFormat half);
  // int8 where the width has an int8 form, else empty: a second form of a matrix that must also
  // stay exact (a tied output projection, whose table the embedding lookups read).
  static WeightMatrix int8(const Matrix& weight);

  // For a matrix a decoder step multiplies by: the kernel's one-row products read the packed
  // layout fastest, and int8 when the load option asks (`int8`). Replaces the held form: still
  // one copy. A 16-bit matrix stays in its format (or becomes int8).
  void prepare_for_steps(bool int8);

  Form form() const { return form_; }
  bool half() const { return form_ == Form::Packed && packed_.half(); }  // 16-bit storage
  simd::HalfFormat half_format() const { return form_ == Form::Packed ? packed_.half_format() : simd::HalfFormat::None; }
  int rows() const { return rows_; }                                     // out
  int cols() const { return cols_; }                                     // in
  bool empty() const { return rows_ == 0 || cols_ == 0; }
  std::size_t bytes() const;  // what the storage holds

  // Rows [begin, begin + n) and columns [begin, begin + n) as binary32, converted from the one
  // copy: exactly the stored values (int8: its levels times the row's scale).
  Matrix middle_rows(int begin, int n) const;
  Matrix middle_cols(int begin, int n) const;
  RowVector row(int o) const { return middle_rows(o, 1); }
  Matrix to_matrix() const { return middle_rows(0, rows_); }
  // The plain form's matrix; throws for another form (for a caller that must not copy).
  const Matrix& plain_matrix() const;
  Matrix& plain_matrix();  // what training updates in place (its weights are all plain)

  const simd::PackedWeights& packed_weights() const { return packed_; }
  const simd::Int8Weights& int8_weights() const { return int8_; }

 private:
  float at(int o, int i) const;  // one stored value as binary32

  Form form_ = Form::Plain;
  Matrix plain_;
  simd::PackedWeights packed_;
  simd::Int8Weights int8_;
  int rows_ = 0, cols_ = 0;
};

// y = x Wᵀ + b with W in any form: the kernel reads it where it is, Eigen's path (MatmulPath::
// Eigen) multiplies the plain matrix (converted first for another form). A 16-bit matrix with
// an input its kernel refuses gives the plain kernel's bits from the converted weights.
Matrix linear(const MatrixRef& x, const WeightMatrix& weight, const RowVector& bias);

// dx = dy W, the gradient at a linear map's input (its backward): the plain matrix multiplied
// directly; another form a block of rows at a time, each converted to binary32 (so a backward
// through a loaded model holds no binary32 copy of it). dy: [N, out]; returns [N, in].
Matrix linear_input_gradient(const MatrixRef& dy, const WeightMatrix& weight);

}  // namespace attnscope::ops
