// The forwards of the blocks (blocks.h): the inference path's functions on the inference
// layers' weights, asked to keep what the backward needs. Nothing here computes a formula of
// its own.
#include <string>

#include "core/error.h"
#include "layers/blocks.h"

namespace attnscope::train {

Matrix embedding_forward(const ops::WeightMatrix& table, const std::vector<int>& ids, float scale, const char* what) {
  Matrix x(ids.size(), table.cols());
  for (std::size_t r = 0; r < ids.size(); ++r) {
    if (ids[r] < 0 || ids[r] >= table.rows())
      throw InputError(std::string(what) + " id " + std::to_string(ids[r]) + " is outside the vocabulary of " +
                       std::to_string(table.rows()));
    x.row(r) = table.form() == ops::WeightMatrix::Form::Plain ? RowVector(table.plain_matrix().row(ids[r]))
                                                              : table.row(ids[r]);
    x.row(r) *= scale;
  }
  return x;
}

Matrix projection_forward(const ops::WeightMatrix& weight, const RowVector& bias, const Matrix& x) {
  if (weight.form() == ops::WeightMatrix::Form::Plain) return ops::linear_reference(x, weight.plain_matrix(), bias);
  return ops::linear(x, weight, bias);
}

Matrix linear_forward(const Linear& p, const Matrix& x) { return projection_forward(p.weight, p.bias, x); }

Matrix layer_norm_forward(const LayerNorm& p, const Matrix& x, NormCache& cache) {
  return ops::layer_norm(x, p.gamma, p.beta, p.eps, &cache);
}

Matrix rms_norm_forward(const RMSNorm& p, const Matrix& x, NormCache& cache) {
  return ops::rms_norm(x, p.weight, p.eps, &cache);
}

Matrix gated_ffn_forward(const GatedFeedForward& p, const Matrix& x, GatedFeedForwardCache& cache) {
  cache.x = x;
  cache.gate = linear_forward(p.gate, x);
  cache.up = linear_forward(p.up, x);
  cache.hidden = cache.gate;
  ops::activate(cache.hidden, p.activation);
  cache.hidden.array() *= cache.up.array();
  return linear_forward(p.down, cache.hidden);
}

Matrix ffn_forward(const FeedForward& p, const Matrix& x, FeedForwardCache& cache) {
  cache.x = x;
  cache.pre = linear_forward(p.fc1, x);
  cache.hidden = cache.pre;
  ops::activate(cache.hidden, p.activation);
  return linear_forward(p.fc2, cache.hidden);
}

Matrix attention_forward(const MultiHeadAttention& p, const Matrix& x_q, const Matrix& x_kv,
                         const std::vector<Segment>& q_segments, const std::vector<Segment>& kv_segments, bool causal,
                         AttentionCache& cache) {
  cache.x_q = x_q;
  cache.x_kv = x_kv;
  cache.q = linear_forward(p.q_proj, x_q);
  cache.k = linear_forward(p.k_proj, x_kv);
  cache.v = linear_forward(p.v_proj, x_kv);
  const int n_heads = p.n_heads;
  cache.context.resize(x_q.rows(), cache.q.cols());
  cache.attn.clear();
  cache.attn.reserve(q_segments.size() * n_heads);
  std::vector<Matrix> heads;
  for (std::size_t s = 0; s < q_segments.size(); ++s) {
    const Segment qs = q_segments[s], ks = kv_segments[s];
    cache.context.middleRows(qs.begin, qs.length) =
        p.attend(cache.q.middleRows(qs.begin, qs.length), cache.k.middleRows(ks.begin, ks.length),
                 cache.v.middleRows(ks.begin, ks.length), &heads, {}, 0, causal);
    for (Matrix& h : heads) cache.attn.push_back(std::move(h));  // [s · H + h]
  }
  return linear_forward(p.out_proj, cache.context);
}

}  // namespace attnscope::train
