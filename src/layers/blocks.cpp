#include "layers/blocks.h"

#include <cmath>

namespace attnscope::train {

void embedding_backward(ops::WeightMatrix& table_grad, const std::vector<int>& ids, float scale,
                        const Matrix& d_inputs) {
  Matrix& grad = table_grad.plain_matrix();
  for (std::size_t r = 0; r < ids.size(); ++r) grad.row(ids[r]) += d_inputs.row(r) * scale;
}

Matrix projection_backward(const ops::WeightMatrix& weight, ops::WeightMatrix* weight_grad, RowVector* bias_grad,
                           const Matrix& x, const Matrix& dy) {
  if (weight_grad) weight_grad->plain_matrix().noalias() += dy.transpose() * x;
  if (bias_grad) *bias_grad += dy.colwise().sum();
  return ops::linear_input_gradient(dy, weight);
}

Matrix linear_backward(const Linear& p, Linear* grad, const Matrix& x, const Matrix& dy, bool bias_gradient) {
  return projection_backward(p.weight, grad ? &grad->weight : nullptr,
                             grad && bias_gradient ? &grad->bias : nullptr, x, dy);
}

// dx = rstd · (dx̂ - mean(dx̂) - x̂ · mean(dx̂ ∘ x̂)),  dx̂ = dy ∘ γ
Matrix layer_norm_backward(const LayerNorm& p, LayerNorm* grad, const NormCache& cache, const Matrix& dy) {
  if (grad) {
    grad->gamma += (dy.array() * cache.x_hat.array()).matrix().colwise().sum();
    grad->beta += dy.colwise().sum();
  }
  const Matrix dx_hat = dy.array().rowwise() * p.gamma.array();
  Matrix dx(dy.rows(), dy.cols());
  for (Eigen::Index r = 0; r < dy.rows(); ++r) {
    const float mean_dx_hat = dx_hat.row(r).mean();
    const float mean_dx_hat_x_hat = (dx_hat.row(r).array() * cache.x_hat.row(r).array()).mean();
    dx.row(r) = cache.rstd(r) *
                (dx_hat.row(r).array() - mean_dx_hat - cache.x_hat.row(r).array() * mean_dx_hat_x_hat);
  }
  return dx;
}

Matrix rms_norm_backward(const RMSNorm& p, RMSNorm* grad, const NormCache& cache, const Matrix& dy) {
  if (grad) grad->weight += (dy.array() * cache.x_hat.array()).matrix().colwise().sum();
  const Matrix dx_hat = dy.array().rowwise() * p.weight.array();
  Matrix dx(dy.rows(), dy.cols());
  for (Eigen::Index r = 0; r < dy.rows(); ++r) {
    const float mean_dx_hat_x_hat = (dx_hat.row(r).array() * cache.x_hat.row(r).array()).mean();
    dx.row(r) = cache.rstd(r) * (dx_hat.row(r).array() - cache.x_hat.row(r).array() * mean_dx_hat_x_hat);
  }
  return dx;
}

Matrix rotary_backward(const Rotary& rotary, int n_heads, const std::vector<int>& positions, Matrix dy) {
  rotary.rotate(dy, n_heads, positions, /*inverse=*/true);
  return dy;
}

Matrix dropout_forward(const Matrix& x, float rate, Random* random, Matrix& mask) {
  if (rate <= 0.0f || random == nullptr) {
    mask.resize(0, 0);
    return x;
  }
  const float keep_scale = 1.0f / (1.0f - rate);
  mask.resize(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < mask.size(); ++i) mask.data()[i] = random->uniform() < rate ? 0.0f : keep_scale;
  return x.cwiseProduct(mask);
}

Matrix dropout_backward(const Matrix& dy, const Matrix& mask) { return mask.size() == 0 ? dy : dy.cwiseProduct(mask); }

Matrix ffn_backward(const FeedForward& p, FeedForward* grad, const FeedForwardCache& cache, const Matrix& dy) {
  const Matrix d_hidden = linear_backward(p.fc2, grad ? &grad->fc2 : nullptr, cache.hidden, dy);
  Matrix slope = cache.pre;
  ops::activation_derivative(slope, p.activation);
  return linear_backward(p.fc1, grad ? &grad->fc1 : nullptr, cache.x, d_hidden.cwiseProduct(slope));
}

// FFN = down(h), h = act(g) ∘ u: dh from down; dg = dh ∘ u ∘ act'(g), du = dh ∘ act(g).
Matrix gated_ffn_backward(const GatedFeedForward& p, GatedFeedForward* grad, const GatedFeedForwardCache& cache,
                          const Matrix& dy) {
  const Matrix d_hidden = linear_backward(p.down, grad ? &grad->down : nullptr, cache.hidden, dy);
  Matrix activated = cache.gate, slope = cache.gate;
  ops::activate(activated, p.activation);
  ops::activation_derivative(slope, p.activation);
  const Matrix d_up = d_hidden.cwiseProduct(activated);
  const Matrix d_gate = d_hidden.cwiseProduct(cache.up).cwiseProduct(slope);
  Matrix dx = linear_backward(p.gate, grad ? &grad->gate : nullptr, cache.x, d_gate);
  dx += linear_backward(p.up, grad ? &grad->up : nullptr, cache.x, d_up);
  return dx;
}

AttentionInputGrads attention_backward(const MultiHeadAttention& p, MultiHeadAttention* grad,
                                       const std::vector<Segment>& q_segments,
                                       const std::vector<Segment>& kv_segments, const AttentionCache& cache,
                                       const Matrix& dy) {
  const Matrix d_context = linear_backward(p.out_proj, grad ? &grad->out_proj : nullptr, cache.context, dy);
  const int n_heads = p.n_heads, dh = static_cast<int>(cache.q.cols()) / n_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  Matrix dq = Matrix::Zero(cache.q.rows(), cache.q.cols());
  Matrix dk = Matrix::Zero(cache.k.rows(), cache.k.cols()), dv = Matrix::Zero(cache.v.rows(), cache.v.cols());
  for (std::size_t s = 0; s < q_segments.size(); ++s) {
    const Segment qs = q_segments[s], ks = kv_segments[s];
    for (int h = 0; h < n_heads; ++h) {
      const Matrix& attn = cache.attn[s * n_heads + h];  // [Tq, Tk]
      const auto d_out_h = d_context.block(qs.begin, h * dh, qs.length, dh);
      const auto q_h = cache.q.block(qs.begin, h * dh, qs.length, dh);
      const int g = p.kv_head(h);  // a key/value head shared by a group gathers the group's gradients
      const auto k_h = cache.k.block(ks.begin, g * dh, ks.length, dh);
      const auto v_h = cache.v.block(ks.begin, g * dh, ks.length, dh);
      const Matrix d_attn = d_out_h * v_h.transpose();                        // [Tq, Tk]
      dv.block(ks.begin, g * dh, ks.length, dh).noalias() += attn.transpose() * d_out_h;
      // softmax backward, row by row: dscores = attn ∘ (dattn - Σ_j attn_j dattn_j)
      const Eigen::VectorXf row_dot = (d_attn.array() * attn.array()).rowwise().sum();
      const Matrix d_scores = (attn.array() * (d_attn.array().colwise() - row_dot.array())).matrix() * scale;
      dq.block(qs.begin, h * dh, qs.length, dh).noalias() = d_scores * k_h;
      dk.block(ks.begin, g * dh, ks.length, dh).noalias() += d_scores.transpose() * q_h;
    }
  }
  AttentionInputGrads out;
  out.dx_q = linear_backward(p.q_proj, grad ? &grad->q_proj : nullptr, cache.x_q, dq);
  // ∂L/∂b_k is exactly 0: adding b_k·q_i to every score of query i leaves its softmax unchanged.
  // Summing dk would give rounding noise instead, which Adam (dividing by sqrt(v) + eps) would
  // turn into steps of about lr; PyTorch's noise is matched within the gradient tolerance by 0.
  out.dx_kv = linear_backward(p.k_proj, grad ? &grad->k_proj : nullptr, cache.x_kv, dk, /*bias_gradient=*/false);
  out.dx_kv += linear_backward(p.v_proj, grad ? &grad->v_proj : nullptr, cache.x_kv, dv);
  return out;
}

}  // namespace attnscope::train
