#include "model/weight_reader.h"

#include <algorithm>
#include <cmath>

#include "core/quote.h"
#include "io/half.h"

namespace attnscope {
namespace {

// check_derived(): any derived table up to this size is allowed, whatever the file (the
// largest a shipped model computes is 64 KiB; a tiny test model may still declare 8192
// positions), and beyond it at most as many bytes as the file has.
constexpr std::size_t kDerivedFloorBytes = 16u << 20;
constexpr std::size_t kDerivedBytesPerFileByte = 1;

}  // namespace

// Eigen leaves a new matrix uninitialised: the file's values are written straight into it.
Matrix WeightReader::matrix(const std::string& name, int rows, int cols) {
  check_shape(name, {rows, cols});
  Matrix m(rows, cols);
  load(name, m.data());
  return m;
}

RowVector WeightReader::vector(const std::string& name, int size) {
  check_shape(name, {size});
  RowVector v(size);
  load(name, v.data());
  return v;
}

ops::simd::HalfFormat WeightReader::held_format(const std::string& name) const {
  if (!binary16_) return ops::simd::HalfFormat::None;
  switch (file_.info(name).dtype) {
    case DType::F16: return ops::simd::HalfFormat::Binary16;
    case DType::BF16: return ops::simd::HalfFormat::Bfloat16;
    case DType::F32: break;
  }
  return ops::simd::HalfFormat::None;
}

// With the binary16 load option, a file stored as F16 or BF16 keeps its weights in that format,
// packed (half the bytes of binary32, the same products bit for bit); otherwise they are binary32.
// The 16-bit form is packed from the file a block of rows at a time, never held whole in binary32.
ops::WeightMatrix WeightReader::weight_matrix(const std::string& name, int rows, int cols) {
  const ops::simd::HalfFormat format = held_format(name);
  if (format == ops::simd::HalfFormat::None) return ops::WeightMatrix::plain(matrix(name, rows, cols));
  check_shape(name, {rows, cols});
  // A staged download's tensor is kept in the buffer it arrived in, packed there.
  std::vector<std::uint16_t> halves = file_.take_halves(name);
  if (!halves.empty()) {
    check_finite_halves(name, halves, format);
    used_.insert(name);
    return ops::WeightMatrix::packed_halves(std::move(halves), rows, cols, format);
  }
  const auto width = static_cast<std::size_t>(cols);
  ops::WeightMatrix held = ops::WeightMatrix::packed(
      [&](int first, int n, float* out) {
        file_.read_f32(name, first * width, n * width, out);
        check_finite(name, out, n * width, first * width);
      },
      rows, cols, format);
  used_.insert(name);
  return held;
}

// Exact in either form: the encoder's lookups read the same table (an int8 output is the
// family's own second form).
ops::WeightMatrix WeightReader::embedding_table(const std::string& name, int rows, int cols, bool step_output) {
  ops::WeightMatrix table = weight_matrix(name, rows, cols);
  if (step_output) table.prepare_for_steps(false);
  return table;
}

Linear WeightReader::linear(const std::string& name, int out, int in) {
  return Linear{weight_matrix(name + ".weight", out, in), vector(name + ".bias", out)};
}

LayerNorm WeightReader::layer_norm(const std::string& name, int d, float eps) {
  return LayerNorm{vector(name + ".weight", d), vector(name + ".bias", d), eps};
}

MultiHeadAttention WeightReader::attention(const std::string& name, int d, int n_heads) {
  return MultiHeadAttention{linear(name + ".q_proj", d, d), linear(name + ".k_proj", d, d),
                            linear(name + ".v_proj", d, d), linear(name + ".out_proj", d, d), n_heads};
}

FeedForward WeightReader::ffn(const std::string& name, int d, int d_ff, Activation activation) {
  return FeedForward{linear(name + ".fc1", d_ff, d), linear(name + ".fc2", d, d_ff), activation};
}

void WeightReader::check_all_used() const {
  for (const auto& [name, info] : file_.tensors())
    if (!used_.count(name)) throw ModelFileError("unexpected tensor " + quote(name) + " (not used by this config)");
}

void WeightReader::check_derived(const std::string& what, std::size_t bytes) const {
  const std::size_t allowed = std::max(kDerivedFloorBytes, kDerivedBytesPerFileByte * file_.size());
  if (bytes > allowed)
    throw ModelFileError(what + " would take " + std::to_string(bytes) + " bytes, more than the " +
                         std::to_string(allowed) + " a " + std::to_string(file_.size()) +
                         "-byte file may make the engine allocate");
}

void WeightReader::check_shape(const std::string& name, const std::vector<int>& shape) const {
  const TensorInfo& info = file_.info(name);  // throws "missing tensor"
  const std::vector<std::int64_t> expected(shape.begin(), shape.end());
  if (info.shape == expected) return;
  auto str = [](const auto& s) {
    std::string out = "[";
    for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
  };
  throw ModelFileError("tensor " + quote(name) + " has shape " + str(info.shape) + ", expected " + str(expected));
}

void WeightReader::load(const std::string& name, float* out) {
  file_.read_f32(name, out);
  check_finite(name, out, file_.info(name).numel(), 0);
  used_.insert(name);
}

void WeightReader::check_finite(const std::string& name, const float* values, std::size_t n, std::size_t first) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(values[i]))
      throw ModelFileError("tensor " + quote(name) + " contains " + (std::isnan(values[i]) ? "NaN" : "Inf") +
                           " at flat index " + std::to_string(first + i));
}

void WeightReader::check_finite_halves(const std::string& name, const std::vector<std::uint16_t>& halves,
                                       ops::simd::HalfFormat format) {
  const bool bfloat16 = format == ops::simd::HalfFormat::Bfloat16;
  const std::uint16_t exponent = bfloat16 ? 0x7f80u : 0x7c00u;
  for (std::size_t i = 0; i < halves.size(); ++i)
    if ((halves[i] & exponent) == exponent) {  // the exponent all ones: Inf or NaN
      const float value = bfloat16 ? bfloat16_to_float(halves[i]) : half_to_float(halves[i]);
      check_finite(name, &value, 1, i);
    }
}

}  // namespace attnscope
