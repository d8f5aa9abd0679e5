#pragma once
// The checks of the int8 matrix kernel (src/ops/gemm_int8.h), shared, like
// linear_kernel_check.h, by the native GoogleTest (tests/native/gemm_int8_test.cpp: the SSE2 or
// portable build) and tests/kernels/wasm_kernel_check.cpp (the wasm_simd128 build).
//
// The reference is the exact product in double, and the tolerance is derived from the scheme,
// not from the code: rounding w to the grid s_o·k moves each weight by at most s_o/2 and x to
// s_x·k by at most s_x/2, so |y - x·w_o| <= s_o/2·Σ|x| + s_x/2·Σ|w_o| + in·s_o·s_x/4, where
// s_o = max|w_o| / 127 and s_x = max|x| / Q with Q the level count the header documents (the
// int32 sum is exact). A wrong layout, scale or level count misses it by orders of magnitude.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "linear_kernel_check.h"
#include "ops/gemm_int8.h"

namespace attnscope::kernel_check {

// Q as the header defines it: the most levels for which in · 127 · Q fits in an int32.
inline double documented_levels(int in) { return std::fmin(32767.0, std::floor(2147483647.0 / (127.0 * in))); }

inline std::vector<std::string> run_int8(long* checked = nullptr) {
  using ops::simd::Int8Weights;
  std::vector<std::string> failures;
  auto fail = [&](const Shape& s, const std::string& what) {
    if (failures.size() < 20)
      failures.push_back("int8 [" + std::to_string(s.rows) + " x " + std::to_string(s.in) + "] * [" +
                         std::to_string(s.out) + " x " + std::to_string(s.in) + "]^T: " + what);
  };
  std::vector<Shape> shapes;
  for (int rows : {1, 2, 3, 5})
    for (int out : {1, 3, 4, 5, 8, 13})
      for (int in : {16, 32, 48, 272}) shapes.push_back({rows, out, in});
  for (Shape big : {Shape{1, 256, 256}, Shape{1, 512, 256}, Shape{2, 256, 512}, Shape{1, 8105, 256}, Shape{4, 64, 4096}})
    shapes.push_back(big);

  long count = 0;
  std::uint32_t seed = 1000;
  for (const Shape& s : shapes) {
    const Matrix wide = values(s.rows, s.in + 5, seed++);
    const ops::MatrixRef x = wide.leftCols(s.in);
    const Matrix w = values(s.out, s.in, seed++);
    const RowVector b = values(1, s.out, seed++);
    const Int8Weights q(w.data(), s.out, s.in);
    if (q.empty() || q.out() != s.out || q.in() != s.in) {
      fail(s, "no int8 form for finite weights and a width that is a multiple of 16");
      continue;
    }
    // The weights: on the grid, within half a step, the largest of each row at ±127.
    for (int o = 0; o < s.out; ++o) {
      const double step = q.scales()[o];
      int largest = 0;
      for (int i = 0; i < s.in; ++i) {
        const int level = q.level(o, i);
        largest = std::max(largest, std::abs(level));
        if (!(std::fabs(w(o, i) - step * level) <= step * 0.5000001)) {
          fail(s, "weight (" + std::to_string(o) + ", " + std::to_string(i) + ") = " + std::to_string(w(o, i)) +
                      " stored as " + std::to_string(level) + " x " + std::to_string(step));
          break;
        }
      }
      if (largest != 127) fail(s, "row " + std::to_string(o) + "'s largest level is " + std::to_string(largest));
    }
    Matrix y(s.rows, s.out);
    ops::simd::linear(x.data(), s.rows, static_cast<int>(x.outerStride()), q, b.data(), y.data(), s.out);
    for (int r = 0; r < s.rows; ++r) {
      double x_abs = 0, x_max = 0;
      for (int i = 0; i < s.in; ++i) {
        x_abs += std::fabs(x(r, i));
        x_max = std::fmax(x_max, std::fabs(x(r, i)));
      }
      const double s_x = x_max / documented_levels(s.in);
      for (int o = 0; o < s.out; ++o) {
        double exact = b(o), w_abs = 0, magnitude = std::fabs(b(o));
        for (int i = 0; i < s.in; ++i) {
          exact += static_cast<double>(x(r, i)) * w(o, i);
          w_abs += std::fabs(w(o, i));
          magnitude += std::fabs(static_cast<double>(x(r, i)) * w(o, i));
        }
        const double s_o = q.scales()[o];
        const double bound = s_o / 2 * x_abs + s_x / 2 * w_abs + s.in * s_o * s_x / 4 + 1e-6 * magnitude;
        if (!(std::fabs(y(r, o) - exact) <= bound))
          fail(s, "y(" + std::to_string(r) + ", " + std::to_string(o) + ") = " + std::to_string(y(r, o)) + ", exact " +
                      std::to_string(exact) + ", allowed error " + std::to_string(bound));
        ++count;
      }
      // A row alone gives the bits it gives in the batch.
      Matrix alone(1, s.out);
      ops::simd::linear(x.row(r).data(), 1, s.in, q, b.data(), alone.data(), s.out);
      for (int o = 0; o < s.out; ++o)
        if (std::memcmp(&alone(0, o), &y(r, o), sizeof(float)) != 0) {
          fail(s, "row " + std::to_string(r) + " alone differs at " + std::to_string(o));
          break;
        }
    }
  }

  // The worst case for the int32 sums: every input at its largest level times every weight at
  // 127, same signs, at the widest width checked. An overflow would flip the sign.
  {
    const Shape s{1, 4, 4096};
    const Matrix w = Matrix::Constant(s.out, s.in, -0.75f), x = Matrix::Constant(1, s.in, -3.0f);
    const Int8Weights q(w.data(), s.out, s.in);
    Matrix y(1, s.out);
    ops::simd::linear(x.data(), 1, s.in, q, nullptr, y.data(), s.out);
    for (int o = 0; o < s.out; ++o)
      if (!(std::fabs(y(0, o) - 9216.0f) <= 9216.0f * 1e-5f)) fail(s, "saturated sum gave " + std::to_string(y(0, o)));
  }
  // Zeros, non-finite inputs (NaN out, that row only) and weights that have no int8 form.
  {
    const Shape s{3, 5, 32};
    Matrix x = values(s.rows, s.in, 7);
    const Matrix w = values(s.out, s.in, 8);
    const RowVector b = values(1, s.out, 9);
    const Int8Weights q(w.data(), s.out, s.in);
    x.row(0).setZero();
    x(1, 3) = std::numeric_limits<float>::quiet_NaN();
    Matrix y(s.rows, s.out), last(1, s.out);
    ops::simd::linear(x.data(), s.rows, s.in, q, b.data(), y.data(), s.out);
    ops::simd::linear(x.row(2).data(), 1, s.in, q, b.data(), last.data(), s.out);
    for (int o = 0; o < s.out; ++o) {
      if (y(0, o) != b(o)) fail(s, "a zero row did not give the bias");
      if (!std::isnan(y(1, o))) fail(s, "a row with NaN gave a number");
      if (std::memcmp(&y(2, o), &last(0, o), sizeof(float)) != 0) fail(s, "a NaN row changed its neighbour");
    }
    x(1, 3) = std::numeric_limits<float>::infinity();
    ops::simd::linear(x.data(), s.rows, s.in, q, b.data(), y.data(), s.out);
    if (!std::isnan(y(1, 0))) fail(s, "a row with inf gave a number");
    Matrix bad = w;
    bad(2, 2) = std::numeric_limits<float>::infinity();
    if (!Int8Weights(bad.data(), s.out, s.in).empty()) fail(s, "weights with inf were quantised");
    if (!Int8Weights(w.data(), s.out, 24).empty()) fail(s, "a width of 24 (not a multiple of 16) was quantised");
    const Matrix zero = Matrix::Zero(s.out, s.in);
    ops::simd::linear(x.data(), 1, s.in, Int8Weights(zero.data(), s.out, s.in), b.data(), y.data(), s.out);
    for (int o = 0; o < s.out; ++o)
      if (y(0, o) != b(o)) fail(s, "zero weights did not give the bias");
  }
  if (checked) *checked += count;
  return failures;
}

}  // namespace attnscope::kernel_check
