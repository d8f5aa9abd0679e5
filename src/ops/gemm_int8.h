#pragma once
// int8 weights for the products of a decoder step: an opt-in trade of exactness for speed
// (Model load option `int8`). A step streams every decoder weight through the cache
// for two FLOPs each, so bytes and instructions per weight are what a step costs: int8 is a
// quarter of f32's bytes and half of binary16's, and WASM's i32x4.dot_i16x8_s does eight
// multiply-adds per instruction where f32x4 does four (and binary16 must first be converted).
//
// Symmetric, per output row (Jacob et al. 2018 without zero points; the "dynamic" scheme of
// ONNX Runtime's MatMulInteger and PyTorch's quantize_dynamic): weight row o is stored as
//   wq[o][i] = round(w[o][i] / s_o) in [-127, 127],  s_o = max_i |w[o][i]| / 127,
// and each input row x, when it arrives, as
//   xq[i] = round(x[i] / s_x) in [-Q, Q] (int16),    s_x = max_i |x[i]| / Q,
// so that y[o] = s_x · s_o · Σ_i xq[i] · wq[o][i] + b[o]. The sum is exact in int32 (Q is the
// largest level count that cannot overflow it: input_levels()), so the order the kernel adds in
// does not matter and every build gives the same bits. The error against the f32 product is
// that of the two roundings: at most s_o/2 · Σ|x| + s_x/2 · Σ|w_o| + in · s_x · s_o / 4.
// Translations can change; the benchmark reports the BLEU change (tests/bench, models/README).
#include <cstdint>
#include <vector>

namespace attnscope::ops::simd {

class Int8Weights {
 public:
  Int8Weights() = default;
  // w: [out, in], row-major. Stays empty() unless `in` is a positive multiple of 16 (the
  // kernel's 16-column chunks) and every weight is finite: the caller keeps its other path.
  Int8Weights(const float* w, int out, int in);
  static bool supports(int in) { return in > 0 && in % 16 == 0; }
  bool empty() const { return q_.empty(); }
  int out() const { return out_; }
  int in() const { return in_; }
  const float* scales() const { return scale_.data(); }  // s_o for each output o
  std::int8_t level(int o, int i) const;  // wq[o][i], whatever the layout
  const std::int8_t* data() const { return q_.data(); }

 private:
  // Blocks of four rows interleaved 16 columns at a time (row o's wq[i..i+15], then row
  // o+1's, o+2's, o+3's, then the next 16 columns): one contiguous stream, as PackedWeights.
  // The last out % 4 rows stay row by row.
  std::vector<std::int8_t> q_;
  std::vector<float> scale_;
  int out_ = 0, in_ = 0;
};

// Q for inputs of width `in`: min(32767, (2^31 - 1) / (127 · in)).
int input_levels(int in);

// y[r·y_stride + o] = s_x(r) · s_o · Σ_i xq(r)[i] · wq[o][i] + bias[o]; `bias` may be null.
// A row holding NaN or ±inf gives NaN outputs (the session reports that as an error).
void linear(const float* x, int rows, int x_stride, const Int8Weights& w, const float* bias, float* y, int y_stride);

}  // namespace attnscope::ops::simd
