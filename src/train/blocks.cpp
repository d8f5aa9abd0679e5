#include "train/blocks.h"

#include <cmath>
#include <limits>

#include "layers/attention.h"

namespace attnscope::train {

Matrix linear_forward(const LinearParams& p, const Matrix& x) {
  Matrix y = x * p.weight.transpose();
  y.rowwise() += p.bias.row(0);
  return y;
}

Matrix linear_backward(const LinearParams& p, LinearParams& grad, const Matrix& x, const Matrix& dy,
                       bool bias_gradient) {
  grad.weight.noalias() += dy.transpose() * x;
  if (bias_gradient) grad.bias += dy.colwise().sum();
  return dy * p.weight;
}

Matrix layer_norm_forward(const NormParams& p, float eps, const Matrix& x, NormCache& cache) {
  const Eigen::Index n = x.rows(), d = x.cols();
  cache.x_hat.resize(n, d);
  cache.rstd.resize(n);
  for (Eigen::Index r = 0; r < n; ++r) {
    const float mean = x.row(r).mean();
    const float var = (x.row(r).array() - mean).square().mean();
    cache.rstd(r) = 1.0f / std::sqrt(var + eps);
    cache.x_hat.row(r) = (x.row(r).array() - mean) * cache.rstd(r);
  }
  Matrix y = cache.x_hat.array().rowwise() * p.gamma.row(0).array();
  y.rowwise() += p.beta.row(0);
  return y;
}

// dx = rstd · (dx̂ - mean(dx̂) - x̂ · mean(dx̂ ∘ x̂)),  dx̂ = dy ∘ γ
Matrix layer_norm_backward(const NormParams& p, NormParams& grad, const NormCache& cache, const Matrix& dy) {
  grad.gamma += (dy.array() * cache.x_hat.array()).matrix().colwise().sum();
  grad.beta += dy.colwise().sum();
  const Matrix dx_hat = dy.array().rowwise() * p.gamma.row(0).array();
  Matrix dx(dy.rows(), dy.cols());
  for (Eigen::Index r = 0; r < dy.rows(); ++r) {
    const float mean_dx_hat = dx_hat.row(r).mean();
    const float mean_dx_hat_x_hat = (dx_hat.row(r).array() * cache.x_hat.row(r).array()).mean();
    dx.row(r) = cache.rstd(r) *
                (dx_hat.row(r).array() - mean_dx_hat - cache.x_hat.row(r).array() * mean_dx_hat_x_hat);
  }
  return dx;
}

double smoothed_cross_entropy(const Matrix& logits, const std::vector<int>& gold, float eps, int divide_by,
                              Matrix& d_logits) {
  const int n = static_cast<int>(gold.size()), vocab = static_cast<int>(logits.cols());
  double loss_sum = 0.0;
  d_logits.resize(n, vocab);
  for (int r = 0; r < n; ++r) {
    const float max = logits.row(r).maxCoeff();
    const float log_sum = std::log((logits.row(r).array() - max).exp().sum());
    const auto log_probs = logits.row(r).array() - max - log_sum;
    const double nll = -log_probs(gold[r]);
    const double smooth = -static_cast<double>(log_probs.sum()) / vocab;
    loss_sum += (1.0 - eps) * nll + eps * smooth;
    d_logits.row(r) = log_probs.exp() - eps / vocab;
    d_logits(r, gold[r]) -= 1.0f - eps;
  }
  d_logits /= static_cast<float>(divide_by);
  return loss_sum;
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

namespace {

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;

// The engine's activations (ops::activate): ReLU, or GELU in its exact erf form.
float activate(float x, Activation act) {
  return act == Activation::ReLU ? std::max(x, 0.0f) : 0.5f * x * (1.0f + std::erf(x * kInvSqrt2));
}
// d act / dx:  ReLU: [x > 0];  GELU: Φ(x) + x φ(x)
float activation_slope(float x, Activation act) {
  if (act == Activation::ReLU) return x > 0.0f ? 1.0f : 0.0f;
  return 0.5f * (1.0f + std::erf(x * kInvSqrt2)) + x * kInvSqrt2Pi * std::exp(-0.5f * x * x);
}

}  // namespace

Matrix ffn_forward(const FeedForwardParams& p, Activation act, const Matrix& x, FeedForwardCache& cache) {
  cache.x = x;
  cache.pre = linear_forward(p.fc1, x);
  cache.hidden = cache.pre.unaryExpr([act](float v) { return activate(v, act); });
  return linear_forward(p.fc2, cache.hidden);
}

Matrix ffn_backward(const FeedForwardParams& p, FeedForwardParams& grad, Activation act, const FeedForwardCache& cache,
                    const Matrix& dy) {
  const Matrix d_hidden = linear_backward(p.fc2, grad.fc2, cache.hidden, dy);
  const Matrix d_pre = d_hidden.cwiseProduct(cache.pre.unaryExpr([act](float v) { return activation_slope(v, act); }));
  return linear_backward(p.fc1, grad.fc1, cache.x, d_pre);
}

Matrix attention_forward(const AttentionParams& p, int n_heads, const Matrix& x_q, const Matrix& x_kv,
                         const std::vector<Segment>& q_segments, const std::vector<Segment>& kv_segments, bool causal,
                         AttentionCache& cache) {
  cache.x_q = x_q;
  cache.x_kv = x_kv;
  cache.q = linear_forward(p.q_proj, x_q);
  cache.k = linear_forward(p.k_proj, x_kv);
  cache.v = linear_forward(p.v_proj, x_kv);
  const int d = static_cast<int>(x_q.cols()), dh = d / n_heads;
  cache.context.setZero(x_q.rows(), d);
  cache.attn.assign(q_segments.size() * n_heads, Matrix());
  for (std::size_t s = 0; s < q_segments.size(); ++s) {
    const Segment qs = q_segments[s], ks = kv_segments[s];
    for (int h = 0; h < n_heads; ++h) {
      const auto q_h = cache.q.block(qs.begin, h * dh, qs.length, dh);
      const auto k_h = cache.k.block(ks.begin, h * dh, ks.length, dh);
      const auto v_h = cache.v.block(ks.begin, h * dh, ks.length, dh);
      Matrix scores = attention_scores(q_h, k_h);  // [Tq, Tk] q·kᵀ/√dh, the engine's own (layers/)
      if (causal)
        for (int i = 0; i < qs.length; ++i)
          for (int j = i + 1; j < ks.length; ++j) scores(i, j) = -std::numeric_limits<float>::infinity();
      for (Eigen::Index r = 0; r < scores.rows(); ++r) {  // softmax; a masked score becomes exactly 0
        const float max = scores.row(r).maxCoeff();
        scores.row(r) = (scores.row(r).array() - max).exp();
        scores.row(r) /= scores.row(r).sum();
      }
      cache.context.block(qs.begin, h * dh, qs.length, dh).noalias() = scores * v_h;
      cache.attn[s * n_heads + h] = std::move(scores);
    }
  }
  return linear_forward(p.out_proj, cache.context);
}

AttentionInputGrads attention_backward(const AttentionParams& p, AttentionParams& grad, int n_heads,
                                       const std::vector<Segment>& q_segments,
                                       const std::vector<Segment>& kv_segments, const AttentionCache& cache,
                                       const Matrix& dy) {
  const Matrix d_context = linear_backward(p.out_proj, grad.out_proj, cache.context, dy);
  const int d = static_cast<int>(cache.q.cols()), dh = d / n_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  Matrix dq = Matrix::Zero(cache.q.rows(), d), dk = Matrix::Zero(cache.k.rows(), d), dv = Matrix::Zero(cache.v.rows(), d);
  for (std::size_t s = 0; s < q_segments.size(); ++s) {
    const Segment qs = q_segments[s], ks = kv_segments[s];
    for (int h = 0; h < n_heads; ++h) {
      const Matrix& attn = cache.attn[s * n_heads + h];  // [Tq, Tk]
      const auto d_out_h = d_context.block(qs.begin, h * dh, qs.length, dh);
      const auto q_h = cache.q.block(qs.begin, h * dh, qs.length, dh);
      const auto k_h = cache.k.block(ks.begin, h * dh, ks.length, dh);
      const auto v_h = cache.v.block(ks.begin, h * dh, ks.length, dh);
      const Matrix d_attn = d_out_h * v_h.transpose();                        // [Tq, Tk]
      dv.block(ks.begin, h * dh, ks.length, dh).noalias() = attn.transpose() * d_out_h;
      // softmax backward, row by row: dscores = attn ∘ (dattn - Σ_j attn_j dattn_j)
      const Eigen::VectorXf row_dot = (d_attn.array() * attn.array()).rowwise().sum();
      const Matrix d_scores = (attn.array() * (d_attn.array().colwise() - row_dot.array())).matrix() * scale;
      dq.block(qs.begin, h * dh, qs.length, dh).noalias() = d_scores * k_h;
      dk.block(ks.begin, h * dh, ks.length, dh).noalias() = d_scores.transpose() * q_h;
    }
  }
  AttentionInputGrads out;
  out.dx_q = linear_backward(p.q_proj, grad.q_proj, cache.x_q, dq);
  // ∂L/∂b_k is exactly 0: adding b_k·q_i to every score of query i leaves its softmax unchanged.
  // Summing dk would give rounding noise instead, which Adam (dividing by sqrt(v) + eps) would
  // turn into steps of about lr; PyTorch's noise is matched within the gradient tolerance by 0.
  out.dx_kv = linear_backward(p.k_proj, grad.k_proj, cache.x_kv, dk, /*bias_gradient=*/false);
  out.dx_kv += linear_backward(p.v_proj, grad.v_proj, cache.x_kv, dv);
  return out;
}

}  // namespace attnscope::train
