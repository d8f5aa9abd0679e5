#include "layers/attention.h"

#include <cmath>
#include <limits>

namespace attnscope {

Matrix attention_scores(const ops::MatrixRef& q_h, const ops::MatrixRef& k_h) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(q_h.cols()));
  return (q_h * k_h.transpose()) * scale;
}

Matrix attention_weights(const ops::MatrixRef& q_h, const ops::MatrixRef& k_h, bool causal) {
  Matrix weights = attention_scores(q_h, k_h);
  if (causal)
    for (Eigen::Index i = 0; i < weights.rows(); ++i)
      for (Eigen::Index j = i + 1; j < weights.cols(); ++j) weights(i, j) = -std::numeric_limits<float>::infinity();
  ops::softmax_rows(weights);
  return weights;
}

Matrix MultiHeadAttention::attend(const ops::MatrixRef& q, const ops::MatrixRef& k,
                                  const ops::MatrixRef& v, std::vector<Matrix>* attn,
                                  const AttentionEdits& edits, int first_query, bool causal) const {
  const Eigen::Index d_head = q.cols() / n_heads;
  Matrix heads(q.rows(), q.cols());
  if (attn) attn->assign(n_heads, Matrix());

  for (int h = 0; h < n_heads; ++h) {
    const Eigen::Index g = kv_head(h);
    const auto q_h = q.middleCols(h * d_head, d_head);
    const auto k_h = k.middleCols(g * d_head, d_head);
    const auto v_h = v.middleCols(g * d_head, d_head);

    Matrix scores = attention_weights(q_h, k_h, causal);
    const HeadEdit* edit = edits.any_head() ? &edits.heads[h] : nullptr;
    if (edit && edit->replaced)
      for (Eigen::Index r = 0; r < scores.rows(); ++r)
        scores.row(r) = edit->weights_for(first_query + static_cast<int>(r), static_cast<int>(k.rows()));
    if (edit && edit->masked) heads.middleCols(h * d_head, d_head).setZero();
    else heads.middleCols(h * d_head, d_head).noalias() = scores * v_h;
    if (attn) (*attn)[h] = std::move(scores);
  }
  return heads;
}

}  // namespace attnscope
