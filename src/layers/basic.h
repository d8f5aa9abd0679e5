#pragma once
// The two parameterised building blocks every other layer is made of.
#include "ops/ops.h"

namespace attnscope {

struct Linear {
  // [out, in], held once, in the form its products read (ops/weight_matrix.h): whoever reads a
  // part of it (an analysis' head slice) converts that part.
  ops::WeightMatrix weight;
  RowVector bias;  // [out]

  // For the layers a decoder step runs (ops::WeightMatrix::prepare_for_steps): packed, or int8
  // when the load option asks. Replaces the weight: still one copy.
  void prepare_for_steps(bool int8) { weight.prepare_for_steps(int8); }
  Matrix operator()(const ops::MatrixRef& x) const { return ops::linear(x, weight, bias); }
};

struct LayerNorm {
  RowVector gamma, beta;
  float eps = 1e-5f;
  Matrix operator()(const ops::MatrixRef& x) const { return ops::layer_norm(x, gamma, beta, eps); }
};

// Interventions on one residual sub-layer: drop the sub-layer's contribution (x + 0), or its
// LayerNorm. A skipped sub-layer still runs, so its attention can still be shown and its
// key/value cache stays complete; only its output is thrown away.
struct SublayerEdit {
  bool skip = false;
  bool skip_norm = false;
};

// A residual sub-layer in either arrangement:
//   post-norm (Vaswani et al. 2017):  x = LN(x + f(x))
//   pre-norm  (Xiong et al. 2020):    x = x + f(LN(x))
// `ln` is the norm as a function of its input: inference passes the layer's LayerNorm, training
// (layers/layer_stack.h) one that also keeps what its backward needs, and a dropout inside f.
template <class Norm, class F>
Matrix residual_with(const Matrix& x, Norm ln, NormPosition where, F f) {
  if (where == NormPosition::Pre) return x + f(ln(x));
  return ln(x + f(x));
}

// The same for inference, with an intervention: a skipped sub-layer still runs (its attention
// is shown, its cache stays complete) but adds nothing; a skipped norm is the identity.
template <class F>
Matrix residual(const Matrix& x, const LayerNorm& norm, NormPosition where, F f, SublayerEdit edit = {}) {
  auto ln = [&](const Matrix& m) { return edit.skip_norm ? m : norm(m); };
  if (!edit.skip) return residual_with(x, ln, where, f);
  if (where == NormPosition::Pre) {
    f(ln(x));
    return x;
  }
  f(x);
  return ln(x);
}

}  // namespace attnscope
