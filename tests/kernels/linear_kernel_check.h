#pragma once
// The checks of the hand-written matrix kernel (src/ops/gemm_simd.h), in both weight layouts,
// against Eigen's product (ops::linear_reference), shared by the native GoogleTest
// (tests/native/gemm_kernel_test.cpp, which runs the generic-vector build of the kernel) and
// tests/kernels/wasm_kernel_check.cpp (the wasm_simd128 build, run under Node by
// tests/js/kernels.test.js). One list of shapes and one tolerance for both, so the two builds
// are held to the same standard.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "io/half.h"
#include "ops/gemm_simd.h"
#include "ops/ops.h"

namespace attnscope::kernel_check {

struct Shape {
  int rows, out, in;
};

// Odd sizes on purpose: widths that are not multiples of 4 (the scalar tail), output counts
// that are not multiples of 4 (the one-row blocks), odd row counts (the one-input blocks),
// and the model's own shapes.
inline std::vector<Shape> shapes() {
  std::vector<Shape> s;
  for (int rows : {1, 2, 3, 4, 5, 9})  // 4 and 9: the four-row blocks of a beam, and what follows them
    for (int out : {1, 3, 4, 5, 8, 13})
      for (int in : {1, 2, 3, 4, 5, 7, 8, 9, 31, 33}) s.push_back({rows, out, in});
  for (Shape big : {Shape{1, 256, 256}, Shape{1, 512, 256}, Shape{1, 256, 512}, Shape{1, 8105, 256},
                    Shape{15, 768, 256}, Shape{17, 257, 255}, Shape{4, 1023, 129}, Shape{7, 64, 1000}})
    s.push_back(big);
  return s;
}

// Deterministic values in [-1, 1) of mixed magnitudes, so cancellation happens.
inline Matrix values(int rows, int cols, std::uint32_t seed) {
  Matrix m(rows, cols);
  std::uint32_t state = seed * 2654435761u + 1;
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    state = state * 1664525u + 1013904223u;
    const float unit = static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f;
    m.data()[i] = (i % 7 == 0) ? unit * 100.0f : unit;
  }
  return m;
}

inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every failure, described; empty when the kernel passes. `checked` counts the values compared.
inline std::vector<std::string> run(long* checked = nullptr) {
  std::vector<std::string> failures;
  auto fail = [&](const Shape& s, const std::string& what) {
    if (failures.size() < 20)
      failures.push_back("[" + std::to_string(s.rows) + " x " + std::to_string(s.in) + "] * [" + std::to_string(s.out) +
                         " x " + std::to_string(s.in) + "]^T: " + what);
  };
  long count = 0;
  std::uint32_t seed = 1;
  for (const Shape& s : shapes()) {
    // x is a block inside a wider matrix, so rows are strided, as a Ref to a column block is.
    const Matrix wide = values(s.rows, s.in + 3, seed++);
    const ops::MatrixRef x = wide.leftCols(s.in);
    const Matrix w = values(s.out, s.in, seed++);
    const RowVector b = values(1, s.out, seed++);
    const Matrix reference = ops::linear_reference(x, w, b);
    Matrix y(s.rows, s.out);
    ops::simd::linear(x.data(), s.rows, static_cast<int>(x.outerStride()), w.data(), s.out, s.in, b.data(), y.data(),
                      s.out);
    for (int r = 0; r < s.rows; ++r) {
      for (int o = 0; o < s.out; ++o) {
        // Float sums of n products, in any order, are within about n·eps·Σ|products| of the
        // exact sum, hence of each other; the kernel's four-lane order does much better.
        double exact = b(o), magnitude = std::fabs(b(o));
        for (int i = 0; i < s.in; ++i) {
          exact += static_cast<double>(x(r, i)) * w(o, i);
          magnitude += std::fabs(static_cast<double>(x(r, i)) * w(o, i));
        }
        const double bound = (s.in + 2) * 1.2e-7 * magnitude;
        const double kernel_error = std::fabs(y(r, o) - exact), eigen_gap = std::fabs(y(r, o) - reference(r, o));
        if (!(kernel_error <= bound) || !(eigen_gap <= 2 * bound))
          fail(s, "y(" + std::to_string(r) + ", " + std::to_string(o) + ") = " + std::to_string(y(r, o)) +
                      ", Eigen " + std::to_string(reference(r, o)) + ", exact " + std::to_string(exact));
        ++count;
      }
    }
    // The packed layout (what a decoder step uses) gives the same bits as the plain one.
    const ops::simd::PackedWeights packed(w.data(), s.out, s.in);
    Matrix y_packed(s.rows, s.out);
    ops::simd::linear(x.data(), s.rows, static_cast<int>(x.outerStride()), packed, b.data(), y_packed.data(), s.out);
    for (int r = 0; r < s.rows; ++r)
      for (int o = 0; o < s.out; ++o)
        if (!same_bits(y_packed(r, o), y(r, o)))
          fail(s, "packed weights differ at y(" + std::to_string(r) + ", " + std::to_string(o) + ")");
    // A row's result must not depend on its neighbours: each input row alone, and each output
    // alone (one weight row), give the very same bits as the batched call.
    for (int r = 0; r < s.rows; ++r) {
      Matrix alone(1, s.out);
      ops::simd::linear(x.row(r).data(), 1, s.in, w.data(), s.out, s.in, b.data(), alone.data(), s.out);
      for (int o = 0; o < s.out; ++o)
        if (!same_bits(alone(0, o), y(r, o))) fail(s, "row " + std::to_string(r) + " alone differs at " + std::to_string(o));
    }
    for (int o = 0; o < s.out; o += std::max(1, s.out / 7)) {
      Matrix one(s.rows, 1);
      ops::simd::linear(x.data(), s.rows, static_cast<int>(x.outerStride()), w.row(o).data(), 1, s.in, b.data() + o,
                        one.data(), 1);
      for (int r = 0; r < s.rows; ++r)
        if (!same_bits(one(r, 0), y(r, o))) fail(s, "output " + std::to_string(o) + " alone differs at row " + std::to_string(r));
    }
  }
  // Weights that are all values of a 16-bit format (as loaded from an F16 or BF16 model file)
  // are packed in that format, and must still give the plain layout's bits: every exponent,
  // subnormals, zeros and both signs, and the largest input the format's path accepts
  // (binary16: |x| < 65536, so that x·2^112 stays finite; bfloat16 any finite x, as it needs no
  // scaled input). The next input is refused, leaving y alone, and a weight the format lacks
  // keeps the binary32 layout. Rows 4 to 9: the four-row blocks of a beam, and what is left.
  struct Format16 {
    ops::simd::HalfFormat format;
    const char* name;
    float (*value)(std::uint16_t);
    std::uint16_t (*finite)(std::uint16_t);  // a pattern made finite (bfloat16: no product overflows)
    float accepted, refused;                  // inputs
  };
  const Format16 formats[] = {
      {ops::simd::HalfFormat::Binary16, "binary16", half_to_float,
       [](std::uint16_t h) { return static_cast<std::uint16_t>(((h >> 10) & 0x1f) == 0x1f ? h & 0xbfff : h); },
       65535.0f, 65536.0f},
      {ops::simd::HalfFormat::Bfloat16, "bfloat16", bfloat16_to_float,
       [](std::uint16_t h) { return static_cast<std::uint16_t>(((h >> 7) & 0xff) >= 0xc0 ? h & 0xbfff : h); },
       1e6f, std::numeric_limits<float>::quiet_NaN()},
  };
  for (const Format16& f : formats)
    for (Shape s : {Shape{1, 4, 8}, Shape{1, 7, 16}, Shape{2, 9, 64}, Shape{3, 256, 256}, Shape{1, 8105, 256},
                    Shape{5, 13, 512}, Shape{4, 8105, 256}, Shape{4, 7, 16}, Shape{6, 9, 64}, Shape{7, 5, 8},
                    Shape{8, 256, 512}, Shape{9, 13, 8}}) {
      const std::string name = f.name;
      std::uint32_t state = seed++;
      Matrix w(s.out, s.in);
      for (Eigen::Index i = 0; i < w.size(); ++i) {
        state = state * 1664525u + 1013904223u;
        w.data()[i] = f.value(f.finite(static_cast<std::uint16_t>(state >> 16)));
      }
      Matrix x = values(s.rows, s.in, seed++);
      x(0, 0) = f.accepted;
      const RowVector b = values(1, s.out, seed++);
      const ops::simd::PackedWeights packed(w.data(), s.out, s.in, f.format);
      if (packed.half_format() != f.format) fail(s, name + " weights were not packed as " + name);
      if (ops::simd::PackedWeights(w.data(), s.out, s.in).half()) fail(s, "packed as " + name + " without being asked");
      Matrix plain(s.rows, s.out), half(s.rows, s.out);
      ops::simd::linear(x.data(), s.rows, s.in, w.data(), s.out, s.in, b.data(), plain.data(), s.out);
      if (!ops::simd::linear(x.data(), s.rows, s.in, packed, b.data(), half.data(), s.out)) fail(s, name + " path refused");
      for (Eigen::Index i = 0; i < plain.size(); ++i)
        if (!same_bits(plain.data()[i], half.data()[i])) {
          fail(s, name + " weights differ at flat index " + std::to_string(i));
          break;
        }
      x(0, 1) = f.refused;
      if (ops::simd::linear(x.data(), s.rows, s.in, packed, b.data(), half.data(), s.out))
        fail(s, name + " path took " + std::to_string(f.refused));
      w(0, 0) = 0.1f;
      if (ops::simd::PackedWeights(w.data(), s.out, s.in, f.format).half()) fail(s, "0.1 packed as " + name);
    }

  // No bias: the sum alone.
  const Matrix x = values(3, 10, 99), w = values(5, 10, 98);
  Matrix y(3, 5);
  ops::simd::linear(x.data(), 3, 10, w.data(), 5, 10, nullptr, y.data(), 5);
  const Matrix expected = x * w.transpose(), magnitude = x.cwiseAbs() * w.cwiseAbs().transpose();
  if (!((y - expected).cwiseAbs().array() <= 12 * 2.4e-7f * magnitude.array()).all()) fail({3, 5, 10}, "without bias");
  if (checked) *checked = count;
  return failures;
}

}  // namespace attnscope::kernel_check
