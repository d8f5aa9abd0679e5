#include "layers/params.h"

#include <algorithm>

namespace attnscope::train {

Linear linear_zeros(int out, int in) { return {ops::WeightMatrix::plain(Matrix::Zero(out, in)), RowVector::Zero(out)}; }
LayerNorm norm_zeros(int d, float eps) { return {RowVector::Zero(d), RowVector::Zero(d), eps}; }
MultiHeadAttention attention_zeros(int d, int n_heads) {
  return {linear_zeros(d, d), linear_zeros(d, d), linear_zeros(d, d), linear_zeros(d, d), n_heads};
}
FeedForward ffn_zeros(int d, int d_ff, Activation activation) {
  if (d_ff == 0) return {Linear{}, Linear{}, activation};
  return {linear_zeros(d_ff, d), linear_zeros(d, d_ff), activation};
}

void add_tensors(TensorList& out, const std::string& name, Linear& p) {
  out.push_back({name + ".weight", p.weight.plain_matrix(), false});
  out.push_back({name + ".bias", p.bias, true});
}
void add_tensors(TensorList& out, const std::string& name, LayerNorm& p) {
  out.push_back({name + ".weight", p.gamma, true});
  out.push_back({name + ".bias", p.beta, true});
}
void add_tensors(TensorList& out, const std::string& name, MultiHeadAttention& p) {
  add_tensors(out, name + ".q_proj", p.q_proj);
  add_tensors(out, name + ".k_proj", p.k_proj);
  add_tensors(out, name + ".v_proj", p.v_proj);
  add_tensors(out, name + ".out_proj", p.out_proj);
}
void add_tensors(TensorList& out, const std::string& name, FeedForward& p) {
  add_tensors(out, name + ".fc1", p.fc1);
  add_tensors(out, name + ".fc2", p.fc2);
}

void add_tensors(TensorList& out, const std::string& name, EncoderLayer& p) {
  add_tensors(out, name + ".self_attn", p.self_attn);
  add_tensors(out, name + ".self_attn_norm", p.self_attn_norm);
  if (!has_ffn(p.ffn)) return;
  add_tensors(out, name + ".ffn", p.ffn);
  add_tensors(out, name + ".ffn_norm", p.ffn_norm);
}

void add_tensors(TensorList& out, const std::string& name, DecoderLayer& p) {
  add_tensors(out, name + ".self_attn", p.self_attn);
  add_tensors(out, name + ".self_attn_norm", p.self_attn_norm);
  add_tensors(out, name + ".cross_attn", p.cross_attn);
  add_tensors(out, name + ".cross_attn_norm", p.cross_attn_norm);
  add_tensors(out, name + ".ffn", p.ffn);
  add_tensors(out, name + ".ffn_norm", p.ffn_norm);
}

std::size_t count_values(const Linear& p) { return count_values(p.weight) + count_values(p.bias); }
std::size_t count_values(const LayerNorm& p) { return count_values(p.gamma) + count_values(p.beta); }
std::size_t count_values(const MultiHeadAttention& p) {
  return count_values(p.q_proj) + count_values(p.k_proj) + count_values(p.v_proj) + count_values(p.out_proj);
}
std::size_t count_values(const FeedForward& p) { return count_values(p.fc1) + count_values(p.fc2); }
std::size_t count_values(const EncoderLayer& p) {
  const std::size_t attention = count_values(p.self_attn) + count_values(p.self_attn_norm);
  return has_ffn(p.ffn) ? attention + count_values(p.ffn) + count_values(p.ffn_norm) : attention;
}
std::size_t count_values(const DecoderLayer& p) {
  return count_values(p.self_attn) + count_values(p.self_attn_norm) + count_values(p.cross_attn) +
         count_values(p.cross_attn_norm) + count_values(p.ffn) + count_values(p.ffn_norm);
}

void sort_by_name(TensorList& tensors) {
  std::sort(tensors.begin(), tensors.end(), [](const NamedTensor& a, const NamedTensor& b) { return a.name < b.name; });
}

}  // namespace attnscope::train
