#pragma once
// A hand-written matrix kernel for ops::linear: y = x Wᵀ + b with W in PyTorch's [out, in]
// layout, so each output is the dot product of a weight row with an input row.
//
// Why: Eigen 3.4 has no WebAssembly SIMD packet path, so in the WASM build its products are
// scalar code (about 1.5 GFLOP/s); nearly all of a decoder step is these products.
// The kernel is written once against a 4-lane float vector: WASM's f32x4 (wasm_simd128.h)
// under -msimd128, and GCC/Clang's generic vector extension everywhere else, so the native
// tests run the very same loops as the browser.
//
// Every output is summed in the same order whatever the shapes around it and whichever weight
// layout holds W: four lane sums over in[0, 4n) added pairwise, then the scalar tail, then the
// bias. A row's result thus does not depend on how many rows are computed together (a batch
// gives what one row alone gives), and the native and WASM builds agree to the last bit (no
// FMA in either).
#include <cstdint>
#include <functional>
#include <vector>

namespace attnscope::ops::simd {

// y[r·y_stride + o] = bias[o] + Σ_i x[r·x_stride + i] · w[o·in + i], for r < rows, o < out.
// `bias` may be null (no bias). y must not overlap x or w.
void linear(const float* x, int rows, int x_stride, const float* w, int out, int in, const float* bias, float* y,
            int y_stride);

// The same weights rearranged for a decoder step, which streams megabytes of weights through
// the cache for few FLOPs per weight (tests/perf):
//  * as one contiguous stream: each block of four rows is interleaved four columns at a time
//    (row o's w[i..i+3], then row o+1's, o+2's, o+3's, then the next four columns), followed by
//    the block's last in % 4 columns row by row; the last out % 4 rows stay as they are. Four
//    row streams at once were measurably slower than one.
//  * on request (a HalfFormat), in half the bytes when every weight is a value of that 16-bit
//    format (as in a model file stored as F16 or BF16) and `in` is a multiple of 8: interleaved
//    eight columns at a time, converted in registers (gemm_simd.cpp). Where a step is bound by
//    the bytes it reads (a real-size model), half the bytes is also the faster form; on a small
//    model whose weights stay in the cache the conversion costs more than it saves
//    (docs/benchmarks.md).
// Either way the results are those of the plain layout, bit for bit.
// The 16-bit formats: Binary16 is IEEE 754 half precision (a file stored as F16), Bfloat16 is
// binary32's upper 16 bits (a file stored as BF16).
enum class HalfFormat { None, Binary16, Bfloat16 };

class PackedWeights {
 public:
  PackedWeights() = default;
  PackedWeights(const float* w, int out, int in, HalfFormat half = HalfFormat::None);  // w: [out, in], row-major
  // Writes rows [first, first + n) of the [out, in] matrix, row-major, into `rows` (n·in floats).
  // It may be asked for a row twice (a 16-bit packing that meets a value its format lacks starts
  // again in binary32).
  using RowSource = std::function<void(int first, int n, float* rows)>;
  // The same layouts from `rows`, a block of rows at a time: a matrix packed into 16 bits is
  // never held whole in binary32 (a model's load, whose largest tensor would otherwise be held
  // twice over at its peak).
  PackedWeights(const RowSource& rows, int out, int in, HalfFormat half = HalfFormat::None);
  // The 16-bit layout of a row-major [out, in] matrix of `format` values, packed in place a
  // block of rows at a time (the layout keeps a block's rows where they were): a load keeps a
  // file's F16 or BF16 tensor in the buffer it arrived in, with no second copy. `in` is a
  // multiple of 8.
  static PackedWeights from_halves(std::vector<std::uint16_t> rows, int out, int in, HalfFormat format);
  bool empty() const { return data_.empty() && half_.empty(); }
  bool half() const { return !half_.empty(); }  // held in 16 bits
  HalfFormat half_format() const { return half_format_; }
  int out() const { return out_; }
  int in() const { return in_; }
  const float* data() const { return data_.data(); }
  const std::uint16_t* half_data() const { return half_.data(); }

 private:
  std::vector<float> data_;
  std::vector<std::uint16_t> half_;
  HalfFormat half_format_ = HalfFormat::None;
  int out_ = 0, in_ = 0;
};

// Returns false, leaving y alone, when W is binary16 and some |x| >= 65536 (x·2^112 would
// overflow), or W is in 16 bits and some x is not finite: the caller then uses the plain weights.
bool linear(const float* x, int rows, int x_stride, const PackedWeights& w, const float* bias, float* y, int y_stride);

// "wasm_simd128" or "generic vector": which implementation this build compiled.
const char* implementation();

}  // namespace attnscope::ops::simd
