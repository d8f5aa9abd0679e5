#pragma once
// The two parameterised building blocks every other layer is made of.
#include "ops/ops.h"

namespace attnscope {

struct Linear {
  Matrix weight;  // [out, in]
  RowVector bias;  // [out]
  Matrix operator()(const ops::MatrixRef& x) const { return ops::linear(x, weight, bias); }
};

struct LayerNorm {
  RowVector gamma, beta;
  float eps = 1e-5f;
  Matrix operator()(const ops::MatrixRef& x) const { return ops::layer_norm(x, gamma, beta, eps); }
};

// A residual sub-layer in either arrangement:
//   post-norm (Vaswani et al. 2017):  x = LN(x + f(x))
//   pre-norm  (Xiong et al. 2020):    x = x + f(LN(x))
template <class Sublayer>
Matrix residual(const Matrix& x, const LayerNorm& norm, NormPosition where, Sublayer f) {
  if (where == NormPosition::Pre) return x + f(norm(x));
  return norm(x + f(x));
}

}  // namespace attnscope
