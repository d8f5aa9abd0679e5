#include "model/weight_reader.h"

#include <cmath>

namespace attnscope {

Matrix WeightReader::matrix(const std::string& name, int rows, int cols) {
  return Eigen::Map<const Matrix>(load(name, {rows, cols}).data(), rows, cols);
}

RowVector WeightReader::vector(const std::string& name, int size) {
  return Eigen::Map<const RowVector>(load(name, {size}).data(), size);
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

std::vector<float> WeightReader::load(const std::string& name, const std::vector<int>& shape) {
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
  std::vector<float> values = file_.read_f32(name);
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      throw ModelFileError("tensor '" + name + "' contains " + (std::isnan(values[i]) ? "NaN" : "Inf") +
                           " at flat index " + std::to_string(i));
  used_.insert(name);
  return values;
}

}  // namespace attnscope
