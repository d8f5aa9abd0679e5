#include "ops/gemm_simd.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "io/half.h"

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
// Eight binary16 weights, and their halves 0-3 (lo) and 4-7 (hi) as binary32 bit patterns of
// w·2^-112: sign-extended and shifted so that exponent and mantissa land where binary32 keeps
// them (the sign lands in bits 28-31), bits 28-30 cleared. Exact for every binary16 value,
// subnormals included; the 2^112 goes on x instead (also exact). Three integer operations
// per four weights instead of the usual branchy conversion.
using h16x8 = v128_t;
inline h16x8 load8h(const std::uint16_t* p) { return wasm_v128_load(p); }
inline f32x4 half_lo(h16x8 h) {
  return wasm_v128_and(wasm_i32x4_shl(wasm_i32x4_extend_low_i16x8(h), 13), wasm_i32x4_splat(0x8FFFFFFF));
}
inline f32x4 half_hi(h16x8 h) {
  return wasm_v128_and(wasm_i32x4_shl(wasm_i32x4_extend_high_i16x8(h), 13), wasm_i32x4_splat(0x8FFFFFFF));
}
// The same for eight bfloat16 weights: each is binary32's upper half, so shifting it into place
// is the whole conversion (exact, no scale).
inline f32x4 bfloat16_lo(h16x8 h) { return wasm_i32x4_shl(wasm_i32x4_extend_low_i16x8(h), 16); }
inline f32x4 bfloat16_hi(h16x8 h) { return wasm_i32x4_shl(wasm_i32x4_extend_high_i16x8(h), 16); }
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
typedef short h16x8 __attribute__((vector_size(16)));
typedef unsigned u32x4 __attribute__((vector_size(16)));
inline h16x8 load8h(const std::uint16_t* p) {
  h16x8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
typedef short h16x4 __attribute__((vector_size(8)));
typedef int i32x4 __attribute__((vector_size(16)));
// Sign-extends four binary16 patterns to 32 bits in one vector conversion (one pmovsxwd on
// x86-64; building the vector lane by lane made the native step 1.6x slower), as WASM's
// i32x4.extend does.
inline f32x4 half_bits(h16x4 h) {
  const u32x4 widened = reinterpret_cast<u32x4>(__builtin_convertvector(h, i32x4));
  return reinterpret_cast<f32x4>((widened << 13) & 0x8FFFFFFFu);
}
inline f32x4 half_lo(h16x8 h) { return half_bits(__builtin_shufflevector(h, h, 0, 1, 2, 3)); }
inline f32x4 half_hi(h16x8 h) { return half_bits(__builtin_shufflevector(h, h, 4, 5, 6, 7)); }
inline f32x4 bfloat16_bits(h16x4 h) {
  return reinterpret_cast<f32x4>(reinterpret_cast<u32x4>(__builtin_convertvector(h, i32x4)) << 16);
}
inline f32x4 bfloat16_lo(h16x8 h) { return bfloat16_bits(__builtin_shufflevector(h, h, 0, 1, 2, 3)); }
inline f32x4 bfloat16_hi(h16x8 h) { return bfloat16_bits(__builtin_shufflevector(h, h, 4, 5, 6, 7)); }
constexpr const char* kImplementation = "generic vector";
#endif
// How each 16-bit format's weights become binary32 in the kernel: eight at a time (lo, hi), one
// at a time (value), and what the inputs are scaled by so that w·x is exact before rounding
// (input_scale: what lo/hi leave off the weights), for |x| < input_limit.
struct Binary16 {
  static f32x4 lo(h16x8 h) { return half_lo(h); }
  static f32x4 hi(h16x8 h) { return half_hi(h); }
  static float value(std::uint16_t h) { return half_to_float(h); }
  static constexpr float input_scale = 0x1p112f;
  static constexpr float input_limit = 65536.0f;  // |x| below it keeps x·2^112 finite
};
struct Bfloat16 {
  static f32x4 lo(h16x8 h) { return bfloat16_lo(h); }
  static f32x4 hi(h16x8 h) { return bfloat16_hi(h); }
  static float value(std::uint16_t h) { return bfloat16_to_float(h); }
  static constexpr float input_scale = 1.0f;
  static constexpr float input_limit = std::numeric_limits<float>::infinity();  // only a NaN or Inf x is refused
};
// From this many input rows on, 16-bit weights are converted once per block of four outputs
// (linear, below): measured on GPT-2 small's 127-token prompt, converting them again for every
// four rows made the prompt's products slower than binary32's.
constexpr int kRowsForConvertedSlabs = 8;

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
// outputs. 4×2 and 2×4 keep the 8 accumulators and 6 operands within the 16 vector registers
// that x86-64 engines map WASM locals to. The block computes outputs [o0, o0 + W) of a layout
// block LW wide that starts at w (a beam's four rows take a four-wide block in two halves).
template <int W, int R, class Layout, int LW = W>
inline void block(const float* x, int x_stride, const float* w, int o0, int in, const float* bias, float* y,
                  int y_stride) {
  f32x4 acc[W][R];
  for (int o = 0; o < W; ++o)
    for (int r = 0; r < R; ++r) acc[o][r] = zero4();
  const int in4 = in & ~3;
  for (int i = 0; i < in4; i += 4) {
    f32x4 xv[R];
    for (int r = 0; r < R; ++r) xv[r] = load4(x + r * x_stride + i);
    for (int o = 0; o < W; ++o) {
      const f32x4 wv = load4(Layout::template chunk<LW>(w, in, in4, o0 + o, i));
      for (int r = 0; r < R; ++r) acc[o][r] = mul_add4(acc[o][r], wv, xv[r]);
    }
  }
  for (int o = 0; o < W; ++o) {
    for (int r = 0; r < R; ++r) {
      float sum = sum4(acc[o][r]);
      for (int i = in4; i < in; ++i) sum += Layout::template tail<LW>(w, in, in4, o0 + o, i) * x[r * x_stride + i];
      y[r * y_stride + o] = bias ? sum + bias[o] : sum;
    }
  }
}

// Outputs [o, o + W), whose weights start at w_o, for every input row: four rows at a time (a
// beam of four: each weight loaded once for all of them; half the block's outputs per pass),
// then pairs of rows, then the odd one.
template <int W, class Layout>
void outputs(const float* x, int rows, int x_stride, const float* w_o, int o, int in, const float* bias, float* y,
             int y_stride) {
  const float* b_o = bias ? bias + o : nullptr;
  constexpr int kHalfW = W >= 2 ? W / 2 : 1;
  int r = 0;
  for (; r + 4 <= rows; r += 4)
    for (int part = 0; part < W; part += kHalfW)
      block<kHalfW, 4, Layout, W>(x + static_cast<long>(r) * x_stride, x_stride, w_o, part, in,
                                  b_o ? b_o + part : nullptr, y + static_cast<long>(r) * y_stride + o + part, y_stride);
  for (; r + 2 <= rows; r += 2)
    block<W, 2, Layout>(x + static_cast<long>(r) * x_stride, x_stride, w_o, 0, in, b_o,
                        y + static_cast<long>(r) * y_stride + o, y_stride);
  if (r < rows)
    block<W, 1, Layout>(x + static_cast<long>(r) * x_stride, x_stride, w_o, 0, in, b_o,
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

// The 16-bit layout: as Interleaved, eight columns at a time, `in` a multiple of 8 (no tail).
// The same additions in the same order as block<W, R, ...>, on the same products: a 16-bit
// weight as Format converts it times x·input_scale is exactly w·x before rounding, so the
// result has the same bits. Output o's weights for columns [i, i + 8) are at w + w_stride·i +
// 8·o: w_stride is the layout's block width (4, or 1 for the last out % 4 rows), W how many of
// its outputs this block computes.
template <int W, int R, class Format>
inline void block_half(const float* xs, int x_stride, const std::uint16_t* w, int w_stride, int in, const float* bias,
                       float* y, int y_stride) {
  f32x4 acc[W][R];
  for (int o = 0; o < W; ++o)
    for (int r = 0; r < R; ++r) acc[o][r] = zero4();
  for (int i = 0; i < in; i += 8) {
    f32x4 x_lo[R], x_hi[R];
    for (int r = 0; r < R; ++r) {
      x_lo[r] = load4(xs + r * x_stride + i);
      x_hi[r] = load4(xs + r * x_stride + i + 4);
    }
    for (int o = 0; o < W; ++o) {
      const h16x8 h = load8h(w + static_cast<long>(w_stride) * i + 8 * o);
      const f32x4 w_lo = Format::lo(h), w_hi = Format::hi(h);
      for (int r = 0; r < R; ++r) acc[o][r] = mul_add4(mul_add4(acc[o][r], w_lo, x_lo[r]), w_hi, x_hi[r]);
    }
  }
  for (int o = 0; o < W; ++o)
    for (int r = 0; r < R; ++r) {
      const float sum = sum4(acc[o][r]);
      y[r * y_stride + o] = bias ? sum + bias[o] : sum;
    }
}

// Outputs [o, o + W) of a layout block W wide, for every input row. Four rows at a time (a
// beam of four: each weight converted once for all of them), two outputs per pass so that the
// accumulators and operands still fit the vector registers; then pairs of rows, then the odd one.
template <int W, class Format>
void outputs_half(const float* xs, int rows, int x_stride, const std::uint16_t* w_o, int o, int in, const float* bias,
                  float* y, int y_stride) {
  const float* b_o = bias ? bias + o : nullptr;
  constexpr int kHalfW = W >= 2 ? W / 2 : 1;
  int r = 0;
  for (; r + 4 <= rows; r += 4)
    for (int part = 0; part < W; part += kHalfW)
      block_half<kHalfW, 4, Format>(xs + static_cast<long>(r) * x_stride, x_stride, w_o + 8 * part, W, in,
                            b_o ? b_o + part : nullptr, y + static_cast<long>(r) * y_stride + o + part, y_stride);
  for (; r + 2 <= rows; r += 2)
    block_half<W, 2, Format>(xs + static_cast<long>(r) * x_stride, x_stride, w_o, W, in, b_o,
                     y + static_cast<long>(r) * y_stride + o, y_stride);
  if (r < rows)
    block_half<W, 1, Format>(xs + static_cast<long>(r) * x_stride, x_stride, w_o, W, in, b_o,
                     y + static_cast<long>(r) * y_stride + o, y_stride);
}

// The binary16 value equal to f, if there is one.
bool exact_half(float f, std::uint16_t& h) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const float a = std::fabs(f);
  if (!(a <= 65504.0f)) return false;  // too large, inf or NaN
  if (a >= 0x1p-14f)  // normal: the exponent rebiased, the mantissa's top 10 bits
    h = static_cast<std::uint16_t>(sign | ((((bits >> 23) & 0xffu) - 112u) << 10) | ((bits >> 13) & 0x3ffu));
  else  // subnormal or zero: a multiple of 2^-24
    h = static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(a * 0x1p24f));
  const float back = half_to_float(h);
  return std::memcmp(&back, &f, sizeof f) == 0;
}

// The bfloat16 value equal to f, if there is one: f's upper half, when its lower half is zero.
bool exact_bfloat16(float f, std::uint16_t& h) {
  if (!std::isfinite(f)) return false;
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  h = static_cast<std::uint16_t>(bits >> 16);
  return (bits & 0xffffu) == 0;
}

bool exact_in(HalfFormat format, float f, std::uint16_t& h) {
  return format == HalfFormat::Binary16 ? exact_half(f, h) : exact_bfloat16(f, h);
}

template <class Format>
bool linear_half_outputs(const float* x, int rows, int x_stride, const PackedWeights& w, int first, const float* bias,
                         float* y, int y_stride);
template <class Format>
bool linear_halves(const float* x, int rows, int x_stride, const PackedWeights& w, const float* bias, float* y,
                   int y_stride);

}  // namespace

void linear(const float* x, int rows, int x_stride, const float* w, int out, int in, const float* bias, float* y,
            int y_stride) {
  all_outputs<RowMajor>(x, rows, x_stride, w, out, in, bias, y, y_stride);
}

bool linear(const float* x, int rows, int x_stride, const PackedWeights& w, const float* bias, float* y, int y_stride) {
  switch (w.half_format()) {
    case HalfFormat::Binary16: return linear_halves<Binary16>(x, rows, x_stride, w, bias, y, y_stride);
    case HalfFormat::Bfloat16: return linear_halves<Bfloat16>(x, rows, x_stride, w, bias, y, y_stride);
    case HalfFormat::None: break;
  }
  all_outputs<Interleaved>(x, rows, x_stride, w.data(), w.out(), w.in(), bias, y, y_stride);
  return true;
}

namespace {

template <class Format>
bool linear_halves(const float* x, int rows, int x_stride, const PackedWeights& w, const float* bias, float* y,
                   int y_stride) {
  const int out = w.out(), in = w.in();
  if (rows < kRowsForConvertedSlabs) return linear_half_outputs<Format>(x, rows, x_stride, w, 0, bias, y, y_stride);
  // (Inputs the 16-bit path refuses are refused here too: one contract whatever the rows.)
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < in; ++i)
      if (!(std::fabs(x[static_cast<long>(r) * x_stride + i]) < Format::input_limit)) return false;
  // Many rows (a prompt, an encoder's sentence): each block of four outputs converted once to
  // the Interleaved binary32 layout and multiplied by the binary32 kernel, rather than every
  // weight converted again for every four rows. The same sums in the same order (block_half's
  // comment), so the same bits; the last out % 4 outputs stay on the 16-bit path below.
  const std::uint16_t* h = w.half_data();
  std::vector<float> slab(static_cast<std::size_t>(4) * in);
  int o = 0;
  for (; o + 4 <= out; o += 4) {
    const std::uint16_t* h_o = h + static_cast<long>(o) * in;
    for (int i8 = 0; i8 < in; i8 += 8)
      for (int r = 0; r < 4; ++r)
        for (int l = 0; l < 8; ++l)
          slab[static_cast<std::size_t>((i8 + l) / 4) * 16 + r * 4 + l % 4] =
              Format::value(h_o[static_cast<long>(i8) * 4 + r * 8 + l]);
    outputs<4, Interleaved>(x, rows, x_stride, slab.data(), o, in, bias, y, y_stride);
  }
  if (o == out) return true;
  return linear_half_outputs<Format>(x, rows, x_stride, w, o, bias, y, y_stride);
}

// Outputs [first, out) of 16-bit weights on the 16-bit kernel (first a multiple of 4).
template <class Format>
bool linear_half_outputs(const float* x, int rows, int x_stride, const PackedWeights& w, int first, const float* bias,
                         float* y, int y_stride) {
  const int out = w.out(), in = w.in();
  std::vector<float> xs(static_cast<std::size_t>(rows) * in);  // x·input_scale
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < in; ++i) {
      const float v = x[static_cast<long>(r) * x_stride + i];
      if (!(std::fabs(v) < Format::input_limit)) return false;
      xs[static_cast<std::size_t>(r) * in + i] = v * Format::input_scale;
    }
  const std::uint16_t* h = w.half_data();
  int o = first;
  for (; o + 4 <= out; o += 4)
    outputs_half<4, Format>(xs.data(), rows, in, h + static_cast<long>(o) * in, o, in, bias, y, y_stride);
  for (; o < out; ++o)
    outputs_half<1, Format>(xs.data(), rows, in, h + static_cast<long>(o) * in, o, in, bias, y, y_stride);
  return true;
}

}  // namespace

PackedWeights::PackedWeights(const float* w, int out, int in, HalfFormat half)
    : PackedWeights(
          [w, in](int first, int n, float* rows) {
            std::memcpy(rows, w + static_cast<std::size_t>(first) * in, static_cast<std::size_t>(n) * in * sizeof(float));
          },
          out, in, half) {}

PackedWeights PackedWeights::from_halves(std::vector<std::uint16_t> rows, int out, int in, HalfFormat format) {
  const std::size_t width = static_cast<std::size_t>(in);
  if (in % 8 != 0 || out < 0 || rows.size() != static_cast<std::size_t>(out) * width)
    throw std::invalid_argument("PackedWeights::from_halves: the rows are not an [out, in] matrix with in % 8 == 0");
  if (format == HalfFormat::None) throw std::invalid_argument("PackedWeights::from_halves: no 16-bit format");
  constexpr int kBlockRows = 64;
  std::vector<std::uint16_t> block(static_cast<std::size_t>(std::min(out, kBlockRows)) * width);
  for (int o0 = 0; o0 < out; o0 += kBlockRows) {
    const int n = std::min(kBlockRows, out - o0);
    std::uint16_t* p = rows.data() + static_cast<std::size_t>(o0) * width;
    std::copy(p, p + static_cast<std::size_t>(n) * width, block.begin());
    const auto at = [&](int o, int i) { return block[static_cast<std::size_t>(o - o0) * width + static_cast<std::size_t>(i)]; };
    // The order of the constructor's 16-bit layout, below.
    int o = o0;
    for (; o + 4 <= o0 + n; o += 4)
      for (int i = 0; i < in; i += 8)
        for (int r = 0; r < 4; ++r)
          for (int l = 0; l < 8; ++l) *p++ = at(o + r, i + l);
    for (; o < o0 + n; ++o)
      for (int i = 0; i < in; ++i) *p++ = at(o, i);
  }
  PackedWeights w;
  w.out_ = out;
  w.in_ = in;
  w.half_ = std::move(rows);
  w.half_format_ = format;
  return w;
}

// Rows are read kBlockRows at a time (a multiple of 4, the layouts' block of rows), each block
// packed before the next is read: the layouts place a block's rows together, so the packed
// stream is written in order.
PackedWeights::PackedWeights(const RowSource& source, int out, int in, HalfFormat half) : out_(out), in_(in) {
  constexpr int kBlockRows = 64;
  std::vector<float> block(static_cast<std::size_t>(std::min(out, kBlockRows)) * static_cast<std::size_t>(in));
  // Each block of rows [o0, o0 + n) through `pack(o0, n, at)`, `at(o, i)` reading the block.
  auto each_block = [&](auto pack) {
    for (int o0 = 0; o0 < out; o0 += kBlockRows) {
      const int n = std::min(kBlockRows, out - o0);
      source(o0, n, block.data());
      const float* b = block.data();
      if (!pack(o0, n, [b, o0, in](int o, int i) { return b[static_cast<std::size_t>(o - o0) * in + i]; })) return false;
    }
    return true;
  };
  // A 16-bit format when asked for, every weight is a value of it (as in every model stored as
  // F16 or BF16) and the rows split into whole 8-column chunks: half the bytes, the same
  // results. Converted straight into the packed layout, given up at the first value the format
  // does not hold.
  if (half != HalfFormat::None && in % 8 == 0 && out > 0) {
    half_.resize(static_cast<std::size_t>(out) * in);
    std::uint16_t* p = half_.data();
    const bool held = each_block([&](int o0, int n, auto at) {
      bool ok = true;
      int o = o0;
      for (; ok && o + 4 <= o0 + n; o += 4)
        for (int i = 0; ok && i < in; i += 8)
          for (int r = 0; r < 4; ++r)
            for (int l = 0; l < 8; ++l) ok = exact_in(half, at(o + r, i + l), *p++) && ok;
      for (; ok && o < o0 + n; ++o)
        for (int i = 0; ok && i < in; ++i) ok = exact_in(half, at(o, i), *p++);
      return ok;
    });
    if (held) {
      half_format_ = half;
      return;
    }
    std::vector<std::uint16_t>().swap(half_);
  }
  data_.resize(static_cast<std::size_t>(out) * in);
  const int in4 = in & ~3;
  float* p = data_.data();
  each_block([&](int o0, int n, auto at) {
    int o = o0;
    for (; o + 4 <= o0 + n; o += 4) {
      for (int i = 0; i < in4; i += 4)
        for (int r = 0; r < 4; ++r)
          for (int l = 0; l < 4; ++l) *p++ = at(o + r, i + l);
      for (int r = 0; r < 4; ++r)
        for (int i = in4; i < in; ++i) *p++ = at(o + r, i);
    }
    for (; o < o0 + n; ++o)
      for (int i = 0; i < in; ++i) *p++ = at(o, i);
    return true;
  });
}

const char* implementation() { return kImplementation; }

}  // namespace attnscope::ops::simd
