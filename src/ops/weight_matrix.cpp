#include "ops/weight_matrix.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "io/half.h"
#include "ops/ops.h"

namespace attnscope::ops {
namespace {

// Rows [row, row + rows) and columns [col, col + cols) of the matrix whose values `at` gives.
template <class At>
Matrix block(At at, int row, int rows, int col, int cols) {
  Matrix out(rows, cols);
  for (int o = 0; o < rows; ++o)
    for (int i = 0; i < cols; ++i) out(o, i) = at(row + o, col + i);
  return out;
}

// One stored 16-bit value as binary32.
float value_of(simd::HalfFormat format, std::uint16_t h) {
  return format == simd::HalfFormat::Bfloat16 ? bfloat16_to_float(h) : half_to_float(h);
}

}  // namespace

WeightMatrix WeightMatrix::plain(Matrix weight) {
  WeightMatrix w;
  w.rows_ = static_cast<int>(weight.rows());
  w.cols_ = static_cast<int>(weight.cols());
  w.plain_ = std::move(weight);
  return w;
}

WeightMatrix WeightMatrix::packed(const Matrix& weight, simd::HalfFormat half) {
  WeightMatrix w;
  w.form_ = Form::Packed;
  w.rows_ = static_cast<int>(weight.rows());
  w.cols_ = static_cast<int>(weight.cols());
  w.packed_ = simd::PackedWeights(weight.data(), w.rows_, w.cols_, half);
  return w;
}

WeightMatrix WeightMatrix::packed(const simd::PackedWeights::RowSource& rows, int out, int in, simd::HalfFormat half) {
  WeightMatrix w;
  w.form_ = Form::Packed;
  w.rows_ = out;
  w.cols_ = in;
  w.packed_ = simd::PackedWeights(rows, out, in, half);
  return w;
}

WeightMatrix WeightMatrix::packed_halves(std::vector<std::uint16_t> rows, int out, int in, simd::HalfFormat format) {
  if (in % 8 != 0) {  // no 16-bit layout for this width: the kernel's binary32 one
    const std::size_t width = static_cast<std::size_t>(in);
    return packed(
        [&](int first, int n, float* out_rows) {
          const std::uint16_t* h = rows.data() + static_cast<std::size_t>(first) * width;
          for (std::size_t k = 0; k < static_cast<std::size_t>(n) * width; ++k) out_rows[k] = value_of(format, h[k]);
        },
        out, in, format);
  }
  WeightMatrix w;
  w.form_ = Form::Packed;
  w.rows_ = out;
  w.cols_ = in;
  w.packed_ = simd::PackedWeights::from_halves(std::move(rows), out, in, format);
  return w;
}

WeightMatrix WeightMatrix::int8_or_packed(const Matrix& weight, simd::HalfFormat half) {
  WeightMatrix w = int8(weight);
  return w.empty() ? packed(weight, half) : w;
}

WeightMatrix WeightMatrix::int8(const Matrix& weight) {
  const int out = static_cast<int>(weight.rows()), in = static_cast<int>(weight.cols());
  simd::Int8Weights q(weight.data(), out, in);
  WeightMatrix w;
  if (q.empty()) return w;
  w.form_ = Form::Int8;
  w.rows_ = out;
  w.cols_ = in;
  w.int8_ = std::move(q);
  return w;
}

void WeightMatrix::prepare_for_steps(bool int8) {
  if (int8) *this = int8_or_packed(to_matrix(), half_format());
  else if (form_ == Form::Plain) *this = packed(plain_, simd::HalfFormat::None);
}

std::size_t WeightMatrix::bytes() const {
  const std::size_t n = static_cast<std::size_t>(rows_) * static_cast<std::size_t>(cols_);
  if (form_ == Form::Plain) return n * sizeof(float);
  if (form_ == Form::Int8) return n + static_cast<std::size_t>(rows_) * sizeof(float);
  return n * (packed_.half() ? 2 : sizeof(float));
}

// Where the packed layouts keep W[o][i] (simd::PackedWeights): blocks of four rows, binary32
// interleaved four columns at a time with the block's last in % 4 columns row by row after
// them, 16-bit eight columns at a time (in % 8 == 0); the last out % 4 rows row by row.
float WeightMatrix::at(int o, int i) const {
  const std::size_t in = static_cast<std::size_t>(cols_);
  if (form_ == Form::Plain) return plain_(o, i);
  if (form_ == Form::Int8) return static_cast<float>(int8_.level(o, i)) * int8_.scales()[o];
  const int out4 = rows_ & ~3;
  if (o >= out4) {
    const std::size_t k = static_cast<std::size_t>(o) * in + static_cast<std::size_t>(i);
    return packed_.half() ? value_of(packed_.half_format(), packed_.half_data()[k]) : packed_.data()[k];
  }
  const std::size_t block = static_cast<std::size_t>(o & ~3) * in, r = static_cast<std::size_t>(o & 3);
  const auto col = static_cast<std::size_t>(i);
  if (packed_.half())
    return value_of(packed_.half_format(), packed_.half_data()[block + 4 * (col & ~std::size_t{7}) + 8 * r + (col & 7)]);
  const std::size_t in4 = in & ~std::size_t{3};
  if (col < in4) return packed_.data()[block + 4 * (col & ~std::size_t{3}) + 4 * r + (col & 3)];
  return packed_.data()[block + 4 * in4 + r * (in - in4) + (col - in4)];
}

Matrix WeightMatrix::middle_rows(int begin, int n) const {
  if (begin < 0 || n < 0 || begin + n > rows_)
    throw Error("weight rows [" + std::to_string(begin) + ", " + std::to_string(begin + n) + ") of " +
                std::to_string(rows_));
  if (form_ == Form::Plain) return plain_.middleRows(begin, n);
  return block([this](int o, int i) { return at(o, i); }, begin, n, 0, cols_);
}

Matrix WeightMatrix::middle_cols(int begin, int n) const {
  if (begin < 0 || n < 0 || begin + n > cols_)
    throw Error("weight columns [" + std::to_string(begin) + ", " + std::to_string(begin + n) + ") of " +
                std::to_string(cols_));
  if (form_ == Form::Plain) return plain_.middleCols(begin, n);
  return block([this](int o, int i) { return at(o, i); }, 0, rows_, begin, n);
}

const Matrix& WeightMatrix::plain_matrix() const {
  if (form_ != Form::Plain) throw Error("internal error: this weight is not held in the plain layout");
  return plain_;
}

Matrix& WeightMatrix::plain_matrix() {
  if (form_ != Form::Plain) throw Error("internal error: this weight is not held in the plain layout");
  return plain_;
}

Matrix linear_input_gradient(const MatrixRef& dy, const WeightMatrix& weight) {
  if (dy.cols() != weight.rows())
    throw Error("linear backward: gradient width " + std::to_string(dy.cols()) + ", weight [" +
                std::to_string(weight.rows()) + ", " + std::to_string(weight.cols()) + "]");
  if (weight.form() == WeightMatrix::Form::Plain) return dy * weight.plain_matrix();
  constexpr int kBlock = 64;
  Matrix dx = Matrix::Zero(dy.rows(), weight.cols());
  for (int begin = 0; begin < weight.rows(); begin += kBlock) {
    const int n = std::min(kBlock, weight.rows() - begin);
    dx.noalias() += dy.middleCols(begin, n) * weight.middle_rows(begin, n);
  }
  return dx;
}

Matrix linear(const MatrixRef& x, const WeightMatrix& weight, const RowVector& bias) {
  if (weight.form() == WeightMatrix::Form::Plain) return linear(x, weight.plain_matrix(), bias);
  const int out = weight.rows(), in = weight.cols();
  if (x.cols() != in || bias.size() != out)
    throw Error("linear: input width " + std::to_string(x.cols()) + ", weight [" + std::to_string(out) + ", " +
                std::to_string(in) + "], bias " + std::to_string(bias.size()));
  if (matmul_path() == MatmulPath::Eigen) return linear_reference(x, weight.to_matrix(), bias);
  Matrix y(x.rows(), out);
  const int rows = static_cast<int>(x.rows()), stride = static_cast<int>(x.outerStride());
  if (weight.form() == WeightMatrix::Form::Int8) {
    simd::linear(x.data(), rows, stride, weight.int8_weights(), bias.data(), y.data(), out);
    return y;
  }
  if (!simd::linear(x.data(), rows, stride, weight.packed_weights(), bias.data(), y.data(), out))
    return linear(x, weight.to_matrix(), bias);  // inputs the 16-bit kernel refuses: the plain kernel's bits
  return y;
}

}  // namespace attnscope::ops
