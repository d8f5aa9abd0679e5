#pragma once
// Root-mean-square layer norm (Zhang & Sennrich 2019): no centring and no bias, as LLaMA and T5
// normalise (ops::rms_norm has the formula).
#include "ops/ops.h"

namespace attnscope {

struct RMSNorm {
  RowVector weight;  // [d]
  float eps = 1e-6f;
  Matrix operator()(const ops::MatrixRef& x) const { return ops::rms_norm(x, weight, eps); }
};

}  // namespace attnscope
