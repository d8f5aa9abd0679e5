#include "ops/gemm_simd.h"

#include <cstring>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attnscope::ops::simd {
namespace {

// The four operations the kernel needs on four floats at a time.
#if defined(__wasm_simd128__)
using f32x4 = v128_t;
inline f32x4 load4(const float* p) { return wasm_v128_load(p); }  // no alignment needed
inline f32x4 zero4() { return wasm_f32x4_splat(0.0f); }
inline f32x4 mul_add4(f32x4 acc, f32x4 a, f32x4 b) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }
inline float sum4(f32x4 v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 2)) +
         (wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 3));
}
constexpr const char* kImplementation = "wasm_simd128";
#else
typedef float f32x4 __attribute__((vector_size(16)));
inline f32x4 load4(const float* p) {
  f32x4 v;
  std::memcpy(&v, p, sizeof v);  // rows of odd widths are not 16-byte aligned
  return v;
}
inline f32x4 zero4() { return f32x4{0.0f, 0.0f, 0.0f, 0.0f}; }
inline f32x4 mul_add4(f32x4 acc, f32x4 a, f32x4 b) { return acc + a * b; }
inline float sum4(f32x4 v) { return (v[0] + v[2]) + (v[1] + v[3]); }
constexpr const char* kImplementation = "generic vector";
#endif

// Where a block of W weight rows, starting at p, keeps output o's weights for columns
// [i, i + 4) (`chunk`) and its weight for a tail column i >= in4 (`tail`).
struct RowMajor {  // the plain [out, in] layout: row o at p + o·in
  template <int W>
  static const float* chunk(const float* p, int in, int, int o, int i) { return p + static_cast<long>(o) * in + i; }
  template <int W>
  static float tail(const float* p, int in, int, int o, int i) { return p[static_cast<long>(o) * in + i]; }
};
struct Interleaved {  // PackedWeights: a block's rows interleaved four columns at a time
  template <int W>
  static const float* chunk(const float* p, int, int, int o, int i) { return p + static_cast<long>(W) * i + 4 * o; }
  template <int W>
  static float tail(const float* p, int in, int in4, int o, int i) {
    return p[static_cast<long>(W) * in4 + o * (in - in4) + (i - in4)];
  }
};

// W weight rows (outputs) against R input rows: W·R dot products of length `in`, each in its
// own accumulator, so every weight vector loaded serves R inputs and every input vector W
// outputs. 4×2 keeps the 8 accumulators and 6 operands within the 16 vector registers that
// x86-64 engines map WASM locals to.
template <int W, int R, class Layout>
inline void block(const float* x, int x_stride, const float* w, int in, const float* bias, float* y, int y_stride) {
  f32x4 acc[W][R];
  for (int o = 0; o < W; ++o)
    for (int r = 0; r < R; ++r) acc[o][r] = zero4();
  const int in4 = in & ~3;
  for (int i = 0; i < in4; i += 4) {
    f32x4 xv[R];
    for (int r = 0; r < R; ++r) xv[r] = load4(x + r * x_stride + i);
    for (int o = 0; o < W; ++o) {
      const f32x4 wv = load4(Layout::template chunk<W>(w, in, in4, o, i));
      for (int r = 0; r < R; ++r) acc[o][r] = mul_add4(acc[o][r], wv, xv[r]);
    }
  }
  for (int o = 0; o < W; ++o) {
    for (int r = 0; r < R; ++r) {
      float sum = sum4(acc[o][r]);
      for (int i = in4; i < in; ++i) sum += Layout::template tail<W>(w, in, in4, o, i) * x[r * x_stride + i];
      y[r * y_stride + o] = bias ? sum + bias[o] : sum;
    }
  }
}

// Outputs [o, o + W), whose weights start at w_o, for every input row: pairs of rows, then the
// odd one.
template <int W, class Layout>
void outputs(const float* x, int rows, int x_stride, const float* w_o, int o, int in, const float* bias, float* y,
             int y_stride) {
  const float* b_o = bias ? bias + o : nullptr;
  int r = 0;
  for (; r + 2 <= rows; r += 2)
    block<W, 2, Layout>(x + static_cast<long>(r) * x_stride, x_stride, w_o, in, b_o,
                        y + static_cast<long>(r) * y_stride + o, y_stride);
  if (r < rows)
    block<W, 1, Layout>(x + static_cast<long>(r) * x_stride, x_stride, w_o, in, b_o,
                        y + static_cast<long>(r) * y_stride + o, y_stride);
}

// Blocks of four outputs, then the last out % 4 one at a time. In both layouts the weights of
// outputs [o, ...) start at w + o·in, and a one-row block is a plain row.
template <class Layout>
void all_outputs(const float* x, int rows, int x_stride, const float* w, int out, int in, const float* bias, float* y,
                 int y_stride) {
  int o = 0;
  for (; o + 4 <= out; o += 4)
    outputs<4, Layout>(x, rows, x_stride, w + static_cast<long>(o) * in, o, in, bias, y, y_stride);
  for (; o < out; ++o)
    outputs<1, RowMajor>(x, rows, x_stride, w + static_cast<long>(o) * in, o, in, bias, y, y_stride);
}

}  // namespace

void linear(const float* x, int rows, int x_stride, const float* w, int out, int in, const float* bias, float* y,
            int y_stride) {
  all_outputs<RowMajor>(x, rows, x_stride, w, out, in, bias, y, y_stride);
}

void linear(const float* x, int rows, int x_stride, const PackedWeights& w, const float* bias, float* y, int y_stride) {
  all_outputs<Interleaved>(x, rows, x_stride, w.data(), w.out(), w.in(), bias, y, y_stride);
}

PackedWeights::PackedWeights(const float* w, int out, int in)
    : data_(static_cast<std::size_t>(out) * in), out_(out), in_(in) {
  const int in4 = in & ~3;
  auto at = [&](int o, int i) { return w[static_cast<std::size_t>(o) * in + i]; };
  float* p = data_.data();
  int o = 0;
  for (; o + 4 <= out; o += 4) {
    for (int i = 0; i < in4; i += 4)
      for (int r = 0; r < 4; ++r)
        for (int l = 0; l < 4; ++l) *p++ = at(o + r, i + l);
    for (int r = 0; r < 4; ++r)
      for (int i = in4; i < in; ++i) *p++ = at(o + r, i);
  }
  for (; o < out; ++o)
    for (int i = 0; i < in; ++i) *p++ = at(o, i);
}

const char* implementation() { return kImplementation; }

}  // namespace attnscope::ops::simd
