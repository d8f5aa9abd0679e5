#include "model/weight_reader.h"

#include <cmath>

namespace attnscope {

// Eigen leaves a new matrix uninitialised: the file's values are written straight into it.
Matrix WeightReader::matrix(const std::string& name, int rows, int cols) {
  Matrix m(rows, cols);
  load(name, {rows, cols}, m.data());
  return m;
}

RowVector WeightReader::vector(const std::string& name, int size) {
  RowVector v(size);
  load(name, {size}, v.data());
  return v;
}

Linear WeightReader::linear(const std::string& name, int out, int in) {
  return Linear{matrix(name + ".weight", out, in), vector(name + ".bias", out), {}};
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
    if (!used_.count(name)) throw ModelFileError("unexpected tensor '" + name + "' (not used by this config)");
}

void WeightReader::load(const std::string& name, const std::vector<int>& shape, float* out) {
  const TensorInfo& info = file_.info(name);  // throws "missing tensor"
  std::vector<std::int64_t> expected(shape.begin(), shape.end());
  if (info.shape != expected) {
    auto str = [](const auto& s) {
      std::string out = "[";
      for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
      return out + "]";
    };
    throw ModelFileError("tensor '" + name + "' has shape " + str(info.shape) + ", expected " + str(expected));
  }
  file_.read_f32(name, out);
  const std::size_t n = info.numel();
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(out[i]))
      throw ModelFileError("tensor '" + name + "' contains " + (std::isnan(out[i]) ? "NaN" : "Inf") +
                           " at flat index " + std::to_string(i));
  used_.insert(name);
}

}  // namespace attnscope
