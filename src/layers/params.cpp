#include "layers/params.h"

#include <algorithm>

namespace attnscope::train {
LinearParams linear_zeros(int out, int in) { return {Matrix::Zero(out, in), Matrix::Zero(1, out)}; }
NormParams norm_zeros(int d) { return {Matrix::Zero(1, d), Matrix::Zero(1, d)}; }
AttentionParams attention_zeros(int d) {
  return {linear_zeros(d, d), linear_zeros(d, d), linear_zeros(d, d), linear_zeros(d, d)};
}
FeedForwardParams ffn_zeros(int d, int d_ff) { return {linear_zeros(d_ff, d), linear_zeros(d, d_ff)}; }

void add_tensors(TensorList& out, const std::string& name, LinearParams& p) {
  out.push_back({name + ".weight", &p.weight, false});
  out.push_back({name + ".bias", &p.bias, true});
}
void add_tensors(TensorList& out, const std::string& name, NormParams& p) {
  out.push_back({name + ".weight", &p.gamma, true});
  out.push_back({name + ".bias", &p.beta, true});
}
void add_tensors(TensorList& out, const std::string& name, AttentionParams& p) {
  add_tensors(out, name + ".q_proj", p.q_proj);
  add_tensors(out, name + ".k_proj", p.k_proj);
  add_tensors(out, name + ".v_proj", p.v_proj);
  add_tensors(out, name + ".out_proj", p.out_proj);
}
void add_tensors(TensorList& out, const std::string& name, FeedForwardParams& p) {
  add_tensors(out, name + ".fc1", p.fc1);
  add_tensors(out, name + ".fc2", p.fc2);
}

void add_tensors(TensorList& out, const std::string& name, EncoderLayerParams& p) {
  add_tensors(out, name + ".self_attn", p.self_attn);
  add_tensors(out, name + ".self_attn_norm", p.self_attn_norm);
  if (p.ffn.fc1.weight.size() == 0) return;
  add_tensors(out, name + ".ffn", p.ffn);
  add_tensors(out, name + ".ffn_norm", p.ffn_norm);
}

void sort_by_name(TensorList& tensors) {
  std::sort(tensors.begin(), tensors.end(), [](const NamedTensor& a, const NamedTensor& b) { return a.name < b.name; });
}

}  // namespace attnscope::train
