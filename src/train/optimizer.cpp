#include "train/optimizer.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace attnscope::train {

Adam::Adam(const TensorList& params, AdamOptions options) : options_(options) {
  for (const NamedTensor& t : params) {
    m_.push_back(Matrix::Zero(t.tensor->rows(), t.tensor->cols()));
    v_.push_back(Matrix::Zero(t.tensor->rows(), t.tensor->cols()));
  }
  if (!(options.beta1 >= 0 && options.beta1 < 1 && options.beta2 >= 0 && options.beta2 < 1))
    throw InputError("Adam betas must be in [0, 1)");
  if (!(options.eps >= 0) || !(options.weight_decay >= 0)) throw InputError("Adam eps and weight decay must be >= 0");
}

void Adam::step_tensors(const TensorList& theta, const TensorList& g, double lr) {
  if (theta.size() != m_.size() || g.size() != m_.size())
    throw Error("Adam: " + std::to_string(theta.size()) + " parameters and " + std::to_string(g.size()) +
                " gradients for moments of " + std::to_string(m_.size()) + " tensors");
  ++t_;
  const AdamOptions& o = options_;
  const float beta1 = static_cast<float>(o.beta1), beta2 = static_cast<float>(o.beta2);
  const double bias_correction1 = 1.0 - std::pow(o.beta1, t_);
  const double bias_correction2_sqrt = std::sqrt(1.0 - std::pow(o.beta2, t_));
  const float step_size = static_cast<float>(lr / bias_correction1);
  const float wd = static_cast<float>(o.weight_decay), eps = static_cast<float>(o.eps);
  for (std::size_t i = 0; i < theta.size(); ++i) {
    auto p = theta[i].tensor->array();
    auto grad = g[i].tensor->array();
    if (wd != 0.0f && o.decoupled_weight_decay) p *= static_cast<float>(1.0 - lr * o.weight_decay);
    if (wd != 0.0f && !o.decoupled_weight_decay) grad += wd * p;  // the gradient buffer is consumed
    auto m_i = m_[i].array();
    auto v_i = v_[i].array();
    m_i = m_i * beta1 + grad * (1.0f - beta1);
    v_i = v_i * beta2 + grad.square() * (1.0f - beta2);
    p -= step_size * m_i / (v_i.sqrt() / static_cast<float>(bias_correction2_sqrt) + eps);
  }
}

double Schedule::factor(int updates_done) const {
  if (kind == Kind::Constant) return 1.0;
  const double s = std::max(updates_done, 1), w = std::max(warmup, 1);
  return std::min(s / w, std::sqrt(w / s));
}

double clip_grad_norm_tensors(const TensorList& grads, double max_norm) {
  double total = 0.0;
  for (const auto& t : grads) total += t.tensor->squaredNorm();
  total = std::sqrt(total);
  const double coef = max_norm / (total + 1e-6);
  if (coef < 1.0)
    for (const auto& t : grads) *t.tensor *= static_cast<float>(coef);
  return total;
}

}  // namespace attnscope::train
