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

// W weight rows (outputs) against R input rows: W·R dot products of length `in`, each in its
// own accumulator, so every weight vector loaded serves R inputs and every input vector W
// outputs. 4×2 keeps the 8 accumulators and 6 operands within the 16 vector registers that
// x86-64 engines map WASM locals to.
template <int W, int R>
inline void block(const float* x, int x_stride, const float* w, int in, const float* bias, float* y, int y_stride) {
  f32x4 acc[W][R];
  for (int o = 0; o < W; ++o)
    for (int r = 0; r < R; ++r) acc[o][r] = zero4();
  const int in4 = in & ~3;
  for (int i = 0; i < in4; i += 4) {
    f32x4 xv[R];
    for (int r = 0; r < R; ++r) xv[r] = load4(x + r * x_stride + i);
    for (int o = 0; o < W; ++o) {
      const f32x4 wv = load4(w + o * in + i);
      for (int r = 0; r < R; ++r) acc[o][r] = mul_add4(acc[o][r], wv, xv[r]);
    }
  }
  for (int o = 0; o < W; ++o) {
    for (int r = 0; r < R; ++r) {
      float sum = sum4(acc[o][r]);
      for (int i = in4; i < in; ++i) sum += w[o * in + i] * x[r * x_stride + i];
      y[r * y_stride + o] = bias ? sum + bias[o] : sum;
    }
  }
}

// Outputs [o, o + W) for every input row: pairs of rows, then the odd one.
template <int W>
void outputs(const float* x, int rows, int x_stride, const float* w, int o, int in, const float* bias, float* y,
             int y_stride) {
  const float* w_o = w + static_cast<long>(o) * in;
  const float* b_o = bias ? bias + o : nullptr;
  int r = 0;
  for (; r + 2 <= rows; r += 2)
    block<W, 2>(x + static_cast<long>(r) * x_stride, x_stride, w_o, in, b_o, y + static_cast<long>(r) * y_stride + o,
                y_stride);
  if (r < rows)
    block<W, 1>(x + static_cast<long>(r) * x_stride, x_stride, w_o, in, b_o, y + static_cast<long>(r) * y_stride + o,
                y_stride);
}

}  // namespace

void linear(const float* x, int rows, int x_stride, const float* w, int out, int in, const float* bias, float* y,
            int y_stride) {
  int o = 0;
  for (; o + 4 <= out; o += 4) outputs<4>(x, rows, x_stride, w, o, in, bias, y, y_stride);
  for (; o < out; ++o) outputs<1>(x, rows, x_stride, w, o, in, bias, y, y_stride);
}

const char* implementation() { return kImplementation; }

}  // namespace attnscope::ops::simd
