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
template <class Sublayer>
Matrix residual(const Matrix& x, const LayerNorm& norm, NormPosition where, Sublayer f, SublayerEdit edit = {}) {
  auto ln = [&](const Matrix& m) { return edit.skip_norm ? m : norm(m); };
  if (where == NormPosition::Pre) {
    const Matrix out = f(ln(x));
    return edit.skip ? x : Matrix(x + out);
  }
  const Matrix out = f(x);
  return ln(edit.skip ? x : Matrix(x + out));
}

}  // namespace attnscope
