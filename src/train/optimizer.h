#pragma once
// Adam as torch.optim.Adam / torch.optim.AdamW (PyTorch 1.13 single-tensor code), the learning
// rate schedules of models/train/train.py, and torch.nn.utils.clip_grad_norm_. They walk a family's
// tensors as a TensorList (core/tensor_list.h), so every family shares them; the templates take
// any parameter struct with tensors() (TransformerParams, RnnParams).
#include <vector>

#include "core/tensor_list.h"

namespace attnscope::train {

struct AdamOptions {
  double beta1 = 0.9, beta2 = 0.98, eps = 1e-9;  // models/train/train.py's values
  double weight_decay = 0.0;
  // false: torch.optim.Adam, L2 regularisation: g ← g + weight_decay·θ before the moments.
  // true:  torch.optim.AdamW, decoupled: θ ← θ·(1 - lr·weight_decay) before the Adam step.
  bool decoupled_weight_decay = false;
};

class Adam {
 public:
  // Moments of the shapes of `params` (values unused).
  Adam(const TensorList& params, AdamOptions options);
  template <class Params>
  Adam(const Params& params, AdamOptions options) : Adam(Params(params).tensors(), options) {}

  // One step with learning rate `lr`:
  //   m ← β1·m + (1-β1)·g;  v ← β2·v + (1-β2)·g²;  θ ← θ - lr/(1-β1^t) · m / (sqrt(v)/sqrt(1-β2^t) + eps)
  // The gradient buffers are consumed (L2 weight decay is added into them).
  void step_tensors(const TensorList& params, const TensorList& grads, double lr);
  template <class Params>
  void step(Params& params, Params& grads, double lr) {
    step_tensors(params.tensors(), grads.tensors(), lr);
  }
  int steps() const { return t_; }
  const AdamOptions& options() const { return options_; }

 private:
  AdamOptions options_;
  std::vector<Matrix> m_, v_;  // first and second moments, one per tensor of the parameters
  int t_ = 0;
};

// Learning-rate factor for the update that follows `updates_done` earlier ones:
//   constant: 1;  inverse_sqrt: min(s / warmup, sqrt(warmup / s)), s = max(updates_done, 1)
// (models/train/train.py's `inverse_sqrt` under LambdaLR, whose first two updates both use 1 / warmup).
struct Schedule {
  enum class Kind { Constant, InverseSqrt };
  Kind kind = Kind::Constant;
  int warmup = 1;
  double factor(int updates_done) const;
};

// torch.nn.utils.clip_grad_norm_: total = ‖all gradients‖₂; if max_norm / (total + 1e-6) < 1, every
// gradient is scaled by it. Returns the total norm before clipping.
double clip_grad_norm_tensors(const TensorList& grads, double max_norm);
template <class Params>
double clip_grad_norm(Params& grads, double max_norm) {
  return clip_grad_norm_tensors(grads.tensors(), max_norm);
}

}  // namespace attnscope::train
