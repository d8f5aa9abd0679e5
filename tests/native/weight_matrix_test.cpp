// ops::WeightMatrix: each form (plain, packed binary32, packed binary16, int8) gives back the
// values it holds, row by row and column by column, and its product equals the plain kernel's
// (ops::simd::linear on the row-major matrix) bit for bit on the same binary16-representable
// weights; int8 equals the int8 kernel's product.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "../kernels/linear_kernel_check.h"
#include "io/half.h"
#include "ops/ops.h"
#include "ops/weight_matrix.h"

namespace attnscope {
namespace {

using ops::WeightMatrix;
using ops::simd::HalfFormat;

// Every form a matrix of half_values (below) can be held in.
std::vector<WeightMatrix> every_form(const Matrix& w) {
  std::vector<WeightMatrix> forms;
  forms.push_back(WeightMatrix::plain(w));
  for (HalfFormat f : {HalfFormat::None, HalfFormat::Binary16, HalfFormat::Bfloat16}) forms.push_back(WeightMatrix::packed(w, f));
  return forms;
}

// Binary16 and bfloat16 values (multiples of 1/64 in [-1, 1)), none of them zero-patterned.
Matrix half_values(int rows, int cols, int seed) {
  Matrix w(rows, cols);
  for (Eigen::Index k = 0; k < w.size(); ++k) w.data()[k] = static_cast<float>((k * 37 + seed * 11) % 128 - 64) / 64.0f;
  return w;
}

Matrix plain_kernel(const Matrix& x, const Matrix& w, const RowVector& b) {
  Matrix y(x.rows(), w.rows());
  ops::simd::linear(x.data(), static_cast<int>(x.rows()), static_cast<int>(x.cols()), w.data(), static_cast<int>(w.rows()),
                    static_cast<int>(w.cols()), b.data(), y.data(), static_cast<int>(y.cols()));
  return y;
}

struct Shape {
  int out, in;
};
const Shape kShapes[] = {{1, 8}, {3, 5}, {4, 16}, {5, 16}, {7, 13}, {9, 24}, {12, 37}, {17, 64}, {64, 64}, {130, 48}};

TEST(WeightMatrix, EveryFormHoldsTheValuesItWasGiven) {
  for (const Shape s : kShapes) {
    const Matrix w = half_values(s.out, s.in, s.out);
    for (const WeightMatrix& m : every_form(w)) {
      SCOPED_TRACE(std::to_string(s.out) + "x" + std::to_string(s.in) + " form " + std::to_string(static_cast<int>(m.form())) +
                   " 16-bit format " + std::to_string(static_cast<int>(m.half_format())));
      ASSERT_EQ(m.rows(), s.out);
      ASSERT_EQ(m.cols(), s.in);
      EXPECT_TRUE(m.to_matrix() == w);
      for (int o = 0; o < s.out; ++o) EXPECT_TRUE(m.row(o) == w.row(o));
      EXPECT_TRUE(m.middle_rows(s.out / 2, s.out - s.out / 2) == w.middleRows(s.out / 2, s.out - s.out / 2));
      for (int i = 0; i + 3 <= s.in; i += 3) EXPECT_TRUE(m.middle_cols(i, 3) == w.middleCols(i, 3));
    }
    EXPECT_EQ(WeightMatrix::packed(w, HalfFormat::Binary16).half(), s.in % 8 == 0);  // the 16-bit layout's 8-column rule
    EXPECT_EQ(WeightMatrix::packed(w, HalfFormat::Bfloat16).half(), s.in % 8 == 0);
  }
}

TEST(WeightMatrix, Binary16TakesHalfTheBytes) {
  const Matrix w = half_values(64, 64, 1);
  EXPECT_EQ(WeightMatrix::plain(w).bytes(), 64u * 64u * 4u);
  EXPECT_EQ(WeightMatrix::packed(w, HalfFormat::None).bytes(), 64u * 64u * 4u);
  EXPECT_EQ(WeightMatrix::packed(w, HalfFormat::Binary16).bytes(), 64u * 64u * 2u);
  Matrix not_half = w;
  not_half(3, 5) = 0.1f;  // no binary16 value: binary32 it stays
  EXPECT_FALSE(WeightMatrix::packed(not_half, HalfFormat::Binary16).half());
}

// A load packs a file's tensor from its rows a block at a time; a value binary16 lacks in a late
// block (after earlier blocks were packed as binary16) leaves the whole matrix in binary32.
TEST(WeightMatrix, PackedFromRowsReadsBlocksAndFallsBackWhole) {
  for (const bool late_misfit : {false, true}) {
    Matrix w = half_values(130, 48, 5);
    if (late_misfit) w(129, 47) = 0.1f;
    std::vector<std::pair<int, int>> asked;
    const WeightMatrix m = WeightMatrix::packed(
        [&](int first, int n, float* rows) {
          asked.emplace_back(first, n);
          std::memcpy(rows, w.data() + static_cast<std::size_t>(first) * 48, static_cast<std::size_t>(n) * 48 * sizeof(float));
        },
        130, 48, HalfFormat::Binary16);
    SCOPED_TRACE(late_misfit ? "a value binary16 lacks in the last block" : "binary16 values");
    EXPECT_EQ(m.half(), !late_misfit);
    EXPECT_TRUE(m.to_matrix() == w);
    for (const auto& [first, n] : asked) EXPECT_LE(n, 64) << "rows " << first << " + " << n;
    EXPECT_EQ(asked.size(), late_misfit ? 6u : 3u);  // 64 + 64 + 2 rows, twice when it starts again
  }
}

// A staged F16 tensor is packed in the buffer it arrived in: the same layout, bit for bit, as the
// packing from its rows, for every width (one without a binary16 layout gets binary32).
TEST(WeightMatrix, PackedInPlaceFromHalvesIsThePackingFromRows) {
  for (const Shape s : kShapes) {
    SCOPED_TRACE(std::to_string(s.out) + "x" + std::to_string(s.in));
    // Every kind of finite binary16 value: normal, subnormal, both zeros, the largest.
    std::vector<std::uint16_t> halves(static_cast<std::size_t>(s.out) * s.in);
    for (std::size_t k = 0; k < halves.size(); ++k) {
      const auto h = static_cast<std::uint16_t>((k * 2654435761u) & 0x7bffu) ^ static_cast<std::uint16_t>((k & 1) << 15);
      halves[k] = k % 11 == 0 ? static_cast<std::uint16_t>(0x8000u * (k & 1)) : h;
    }
    Matrix w(s.out, s.in);
    for (std::size_t k = 0; k < halves.size(); ++k) w.data()[k] = half_to_float(halves[k]);
    const WeightMatrix from_rows = WeightMatrix::packed(w, HalfFormat::Binary16);
    const WeightMatrix in_place = WeightMatrix::packed_halves(halves, s.out, s.in, HalfFormat::Binary16);
    ASSERT_EQ(in_place.half(), s.in % 8 == 0);
    ASSERT_EQ(in_place.half(), from_rows.half());
    if (in_place.half()) {
      const std::uint16_t* a = in_place.packed_weights().half_data();
      const std::uint16_t* b = from_rows.packed_weights().half_data();
      EXPECT_TRUE(std::equal(a, a + halves.size(), b)) << "the packed words differ";
    }
    EXPECT_EQ(std::memcmp(in_place.to_matrix().data(), w.data(), halves.size() * sizeof(float)), 0);
  }
}

// The same for a staged BF16 tensor: every kind of finite bfloat16 value.
TEST(WeightMatrix, PackedInPlaceFromBfloat16IsThePackingFromRows) {
  for (const Shape s : kShapes) {
    SCOPED_TRACE(std::to_string(s.out) + "x" + std::to_string(s.in));
    std::vector<std::uint16_t> words(static_cast<std::size_t>(s.out) * s.in);
    for (std::size_t k = 0; k < words.size(); ++k) {
      auto h = static_cast<std::uint16_t>((k * 2654435761u) & 0x7fffu);
      if ((h & 0x7f80u) == 0x7f80u) h &= 0x7f7fu;  // no inf/NaN
      words[k] = k % 11 == 0 ? static_cast<std::uint16_t>(0x8000u * (k & 1)) : static_cast<std::uint16_t>(h ^ ((k & 1) << 15));
    }
    Matrix w(s.out, s.in);
    for (std::size_t k = 0; k < words.size(); ++k) w.data()[k] = bfloat16_to_float(words[k]);
    const WeightMatrix from_rows = WeightMatrix::packed(w, HalfFormat::Bfloat16);
    const WeightMatrix in_place = WeightMatrix::packed_halves(words, s.out, s.in, HalfFormat::Bfloat16);
    ASSERT_EQ(in_place.half_format(), s.in % 8 == 0 ? HalfFormat::Bfloat16 : HalfFormat::None);
    ASSERT_EQ(in_place.half_format(), from_rows.half_format());
    if (in_place.half()) {
      const std::uint16_t* a = in_place.packed_weights().half_data();
      const std::uint16_t* b = from_rows.packed_weights().half_data();
      EXPECT_TRUE(std::equal(a, a + words.size(), b)) << "the packed words differ";
    }
    EXPECT_EQ(std::memcmp(in_place.to_matrix().data(), w.data(), words.size() * sizeof(float)), 0);
    const RowVector b = kernel_check::values(1, s.out, 4);
    for (int rows : {1, 4, 9}) {
      const Matrix x = kernel_check::values(rows, s.in, static_cast<std::uint32_t>(rows + 20));
      EXPECT_TRUE(ops::linear(x, in_place, b) == plain_kernel(x, w, b)) << rows << " rows";
    }
  }
}

TEST(WeightMatrix, EveryFormsProductIsThePlainKernelsBitForBit) {
  for (const Shape s : kShapes) {
    const Matrix w = half_values(s.out, s.in, s.in);
    const RowVector b = kernel_check::values(1, s.out, 9);
    for (int rows : {1, 2, 3, 4, 5, 8, 9}) {
      const Matrix x = kernel_check::values(rows, s.in, static_cast<std::uint32_t>(rows));
      const Matrix want = plain_kernel(x, w, b);
      for (const WeightMatrix& m : every_form(w))
        EXPECT_TRUE(ops::linear(x, m, b) == want)
            << s.out << "x" << s.in << ", " << rows << " rows, 16-bit format " << static_cast<int>(m.half_format());
    }
  }
}

TEST(WeightMatrix, Binary16WithInputsTooLargeForItsKernelGivesThePlainBits) {
  const Matrix w = half_values(5, 16, 2);
  const RowVector b = RowVector::LinSpaced(5, -1.0f, 1.0f);
  const WeightMatrix m = WeightMatrix::packed(w, HalfFormat::Binary16);
  ASSERT_TRUE(m.half());
  Matrix x = kernel_check::values(2, 16, 3);
  x(1, 7) = 1e6f;
  EXPECT_TRUE(ops::linear(x, m, b) == plain_kernel(x, w, b));
}

TEST(WeightMatrix, EigensPathMultipliesThePlainValues) {
  const Matrix w = half_values(9, 24, 4), x = kernel_check::values(3, 24, 5);
  const RowVector b = kernel_check::values(1, 9, 6);
  ops::set_matmul_path(ops::MatmulPath::Eigen);
  for (const WeightMatrix& m : {WeightMatrix::plain(w), WeightMatrix::packed(w, HalfFormat::None), WeightMatrix::packed(w, HalfFormat::Binary16)})
    EXPECT_TRUE(ops::linear(x, m, b) == ops::linear_reference(x, w, b));
  ops::set_matmul_path(ops::MatmulPath::Kernel);
}

TEST(WeightMatrix, Int8IsTheOnlyCopyAndMultipliesAsTheInt8StepPath) {
  const Matrix w = kernel_check::values(9, 32, 7), x = kernel_check::values(3, 32, 8);
  const RowVector b = kernel_check::values(1, 9, 9);
  const WeightMatrix m = WeightMatrix::int8_or_packed(w, HalfFormat::None);
  ASSERT_EQ(m.form(), WeightMatrix::Form::Int8);
  EXPECT_EQ(m.bytes(), 9u * 32u + 9u * 4u);
  Matrix want(3, 9);
  ops::simd::linear(x.data(), 3, 32, ops::simd::Int8Weights(w.data(), 9, 32), b.data(), want.data(), 9);
  EXPECT_TRUE(ops::linear(x, m, b) == want);
  const ops::simd::Int8Weights& q = m.int8_weights();
  for (int o = 0; o < 9; ++o)
    for (int i = 0; i < 32; ++i) EXPECT_EQ(m.row(o)(i), static_cast<float>(q.level(o, i)) * q.scales()[o]);
  // A width with no int8 form (not a multiple of 16) keeps the exact packed weights.
  const Matrix narrow = half_values(4, 24, 1);
  EXPECT_EQ(WeightMatrix::int8_or_packed(narrow, HalfFormat::Binary16).form(), WeightMatrix::Form::Packed);
}

// A backward's dx = dy W: the plain matrix multiplied as it is; every other form, read a block of
// rows at a time, within rounding of dy times the values it holds (the reference: Eigen's product
// of the converted matrix). 130 and 200 rows cross the 64-row blocks.
TEST(WeightMatrix, InputGradientIsDyTimesTheHeldValuesInEveryForm) {
  for (const Shape s : {Shape{3, 5}, Shape{17, 64}, Shape{130, 48}, Shape{200, 32}}) {
    const Matrix w = half_values(s.out, s.in, s.out), dy = kernel_check::values(4, s.out, 3);
    EXPECT_TRUE(ops::linear_input_gradient(dy, WeightMatrix::plain(w)) == Matrix(dy * w));
    for (const WeightMatrix& m : {WeightMatrix::packed(w, HalfFormat::None), WeightMatrix::packed(w, HalfFormat::Binary16),
                                  WeightMatrix::int8_or_packed(w, HalfFormat::None)}) {
      SCOPED_TRACE(std::to_string(s.out) + "x" + std::to_string(s.in) + " form " + std::to_string(static_cast<int>(m.form())));
      const Matrix want = dy * m.to_matrix(), got = ops::linear_input_gradient(dy, m);
      ASSERT_EQ(got.rows(), 4);
      ASSERT_EQ(got.cols(), s.in);
      ASSERT_TRUE(got.allFinite());
      EXPECT_LE((got - want).cwiseAbs().maxCoeff(), 1e-5f * std::max(1.0f, want.cwiseAbs().maxCoeff()));
    }
  }
  EXPECT_THROW(ops::linear_input_gradient(Matrix::Ones(1, 5), WeightMatrix::packed(half_values(4, 8, 1), HalfFormat::Binary16)), Error);
}

TEST(WeightMatrix, RefusesRowsAndColumnsOutsideIt) {
  const WeightMatrix m = WeightMatrix::packed(half_values(4, 8, 1), HalfFormat::Binary16);
  EXPECT_THROW(m.middle_rows(3, 2), Error);
  EXPECT_THROW(m.middle_cols(-1, 2), Error);
  EXPECT_THROW(ops::linear(Matrix::Ones(1, 7), m, RowVector::Zero(4)), Error);
}

}  // namespace
}  // namespace attnscope
