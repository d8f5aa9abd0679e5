#pragma once
// Position-wise feed-forward network: FFN(x) = fc2(act(fc1(x))).
#include "layers/basic.h"
#include "layers/probe.h"

namespace attnscope {

struct FeedForward {
  Linear fc1, fc2;
  Activation activation = Activation::ReLU;

  // No FFN at all (an attention-only layer): fc1 holds no weight.
  bool empty() const { return fc1.weight.empty(); }

  Matrix operator()(const ops::MatrixRef& x, const Probe& probe) const {
    Matrix hidden = fc1(x);
    ops::activate(hidden, activation);
    probe.record("ffn_hidden", hidden);
    return fc2(hidden);
  }
};

}  // namespace attnscope
