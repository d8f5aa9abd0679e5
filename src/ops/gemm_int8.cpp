#include "ops/gemm_int8.h"

#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace attnscope::ops::simd {
namespace {

// The four integer operations the kernel needs, on sixteen int8 weights, eight int16 inputs
// and four int32 sums at a time. Integer sums that cannot overflow are exact in any order, so
// the three implementations below give the same bits.
#if defined(__wasm_simd128__)
using i8x16 = v128_t;
using i16x8 = v128_t;
using i32x4 = v128_t;
inline i8x16 load_i8x16(const std::int8_t* p) { return wasm_v128_load(p); }
inline i16x8 load_i16x8(const std::int16_t* p) { return wasm_v128_load(p); }
inline i16x8 widen_low(i8x16 q) { return wasm_i16x8_extend_low_i8x16(q); }
inline i16x8 widen_high(i8x16 q) { return wasm_i16x8_extend_high_i8x16(q); }
inline i32x4 zero() { return wasm_i32x4_splat(0); }
// acc + (a0·b0 + a1·b1, a2·b2 + a3·b3, ...): one i32x4.dot_i16x8_s, eight multiply-adds.
inline i32x4 dot_add(i32x4 acc, i16x8 a, i16x8 b) { return wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(a, b)); }
inline std::int32_t sum(i32x4 v) {
  return wasm_i32x4_extract_lane(v, 0) + wasm_i32x4_extract_lane(v, 1) + wasm_i32x4_extract_lane(v, 2) +
         wasm_i32x4_extract_lane(v, 3);
}
#elif defined(__SSE2__)
// SSE2's pmaddwd is the same instruction as WASM's dot (it is what V8 compiles it to).
using i8x16 = __m128i;
using i16x8 = __m128i;
using i32x4 = __m128i;
inline i8x16 load_i8x16(const std::int8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline i16x8 load_i16x8(const std::int16_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline i16x8 widen_low(i8x16 q) { return _mm_srai_epi16(_mm_unpacklo_epi8(q, q), 8); }  // sign-extends
inline i16x8 widen_high(i8x16 q) { return _mm_srai_epi16(_mm_unpackhi_epi8(q, q), 8); }
inline i32x4 zero() { return _mm_setzero_si128(); }
inline i32x4 dot_add(i32x4 acc, i16x8 a, i16x8 b) { return _mm_add_epi32(acc, _mm_madd_epi16(a, b)); }
inline std::int32_t sum(i32x4 v) {
  alignas(16) std::int32_t lanes[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(lanes), v);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}
#else
struct i8x16 { std::int8_t v[16]; };
struct i16x8 { std::int16_t v[8]; };
struct i32x4 { std::int32_t v[4]; };
inline i8x16 load_i8x16(const std::int8_t* p) { i8x16 q; for (int l = 0; l < 16; ++l) q.v[l] = p[l]; return q; }
inline i16x8 load_i16x8(const std::int16_t* p) { i16x8 x; for (int l = 0; l < 8; ++l) x.v[l] = p[l]; return x; }
inline i16x8 widen_low(i8x16 q) { i16x8 x; for (int l = 0; l < 8; ++l) x.v[l] = q.v[l]; return x; }
inline i16x8 widen_high(i8x16 q) { i16x8 x; for (int l = 0; l < 8; ++l) x.v[l] = q.v[8 + l]; return x; }
inline i32x4 zero() { return i32x4{{0, 0, 0, 0}}; }
inline i32x4 dot_add(i32x4 acc, i16x8 a, i16x8 b) {
  for (int l = 0; l < 4; ++l) acc.v[l] += a.v[2 * l] * b.v[2 * l] + a.v[2 * l + 1] * b.v[2 * l + 1];
  return acc;
}
inline std::int32_t sum(i32x4 v) { return v.v[0] + v.v[1] + v.v[2] + v.v[3]; }
#endif

constexpr int kChunk = 16;  // weights per load

// W weight rows against R input rows, each pair with its own int32 sums: every weight vector
// loaded serves R inputs and every input vector W outputs (as the float kernel's block).
template <int W, int R>
inline void block(const std::int16_t* xq, int in, const float* x_scale, const std::int8_t* w, const float* w_scale,
                  const float* bias, float* y, int y_stride) {
  i32x4 acc[W][R];
  for (int o = 0; o < W; ++o)
    for (int r = 0; r < R; ++r) acc[o][r] = zero();
  for (int i = 0; i < in; i += kChunk) {
    i16x8 x_lo[R], x_hi[R];
    for (int r = 0; r < R; ++r) {
      x_lo[r] = load_i16x8(xq + static_cast<long>(r) * in + i);
      x_hi[r] = load_i16x8(xq + static_cast<long>(r) * in + i + 8);
    }
    for (int o = 0; o < W; ++o) {
      const i8x16 q = load_i8x16(w + static_cast<long>(W) * i + kChunk * o);
      const i16x8 w_lo = widen_low(q), w_hi = widen_high(q);
      for (int r = 0; r < R; ++r) acc[o][r] = dot_add(dot_add(acc[o][r], w_lo, x_lo[r]), w_hi, x_hi[r]);
    }
  }
  for (int o = 0; o < W; ++o)
    for (int r = 0; r < R; ++r) {
      const float value = static_cast<float>(sum(acc[o][r])) * (x_scale[r] * w_scale[o]);
      y[r * y_stride + o] = bias ? value + bias[o] : value;
    }
}

template <int W>
void outputs(const std::int16_t* xq, int rows, int in, const float* x_scale, const std::int8_t* w_o, int o,
             const float* w_scale, const float* bias, float* y, int y_stride) {
  const float* b_o = bias ? bias + o : nullptr;
  int r = 0;
  for (; r + 2 <= rows; r += 2)
    block<W, 2>(xq + static_cast<long>(r) * in, in, x_scale + r, w_o, w_scale + o, b_o,
                y + static_cast<long>(r) * y_stride + o, y_stride);
  if (r < rows)
    block<W, 1>(xq + static_cast<long>(r) * in, in, x_scale + r, w_o, w_scale + o, b_o,
                y + static_cast<long>(r) * y_stride + o, y_stride);
}

// Round-to-nearest-even of v·inv into [-levels, levels].
inline long quantize(float v, float inv, int levels) {
  const long q = std::lrint(v * inv);
  return q > levels ? levels : (q < -levels ? -levels : q);
}

}  // namespace

int input_levels(int in) {
  const long limit = std::numeric_limits<std::int32_t>::max() / (127L * (in > 0 ? in : 1));
  return static_cast<int>(limit < 32767 ? limit : 32767);
}

Int8Weights::Int8Weights(const float* w, int out, int in) {
  if (!supports(in) || out <= 0) return;
  std::vector<float> scale(static_cast<std::size_t>(out));
  std::vector<std::int8_t> level(static_cast<std::size_t>(out) * in);
  for (int o = 0; o < out; ++o) {
    const float* row = w + static_cast<long>(o) * in;
    float max = 0.0f;
    for (int i = 0; i < in; ++i) {
      if (!std::isfinite(row[i])) return;  // no int8 form
      max = std::fmax(max, std::fabs(row[i]));
    }
    scale[o] = max / 127.0f;
    const float inv = max > 0.0f ? 127.0f / max : 0.0f;
    for (int i = 0; i < in; ++i) level[static_cast<std::size_t>(o) * in + i] = static_cast<std::int8_t>(quantize(row[i], inv, 127));
  }
  q_.resize(level.size());
  std::int8_t* p = q_.data();
  int o = 0;
  for (; o + 4 <= out; o += 4)
    for (int i = 0; i < in; i += kChunk)
      for (int r = 0; r < 4; ++r)
        for (int l = 0; l < kChunk; ++l) *p++ = level[static_cast<std::size_t>(o + r) * in + i + l];
  for (; o < out; ++o)
    for (int i = 0; i < in; ++i) *p++ = level[static_cast<std::size_t>(o) * in + i];
  scale_ = std::move(scale);
  out_ = out;
  in_ = in;
}

std::int8_t Int8Weights::level(int o, int i) const {
  const int blocked = out_ & ~3;
  if (o >= blocked) return q_[static_cast<std::size_t>(o) * in_ + i];
  const long block = static_cast<long>(o / 4) * 4 * in_;
  return q_[static_cast<std::size_t>(block + static_cast<long>(i / kChunk) * 4 * kChunk + (o % 4) * kChunk + i % kChunk)];
}

void linear(const float* x, int rows, int x_stride, const Int8Weights& w, const float* bias, float* y, int y_stride) {
  const int out = w.out(), in = w.in(), levels = input_levels(in);
  std::vector<std::int16_t> xq(static_cast<std::size_t>(rows) * in);
  std::vector<float> x_scale(static_cast<std::size_t>(rows));
  std::vector<bool> not_finite(static_cast<std::size_t>(rows));
  for (int r = 0; r < rows; ++r) {
    const float* row = x + static_cast<long>(r) * x_stride;
    float max = 0.0f;
    bool finite = true;
    for (int i = 0; i < in; ++i) {
      finite = finite && std::isfinite(row[i]);
      max = std::fmax(max, std::fabs(row[i]));
    }
    not_finite[r] = !finite;
    const float inv = max > 0.0f && finite ? levels / max : 0.0f;
    x_scale[r] = max / levels;
    for (int i = 0; i < in; ++i) xq[static_cast<std::size_t>(r) * in + i] = static_cast<std::int16_t>(quantize(row[i], inv, levels));
  }
  const std::int8_t* q = w.data();
  const float* w_scale = w.scales();
  int o = 0;
  for (; o + 4 <= out; o += 4)
    outputs<4>(xq.data(), rows, in, x_scale.data(), q + static_cast<long>(o) * in, o, w_scale, bias, y, y_stride);
  for (; o < out; ++o)
    outputs<1>(xq.data(), rows, in, x_scale.data(), q + static_cast<long>(o) * in, o, w_scale, bias, y, y_stride);
  for (int r = 0; r < rows; ++r)
    if (not_finite[r])
      for (int k = 0; k < out; ++k) y[static_cast<long>(r) * y_stride + k] = std::numeric_limits<float>::quiet_NaN();
}

}  // namespace attnscope::ops::simd
