#pragma once
// Stateless math on row-per-position matrices. Kept apart from the layers so that a faster
// kernel (e.g. hand-written WASM SIMD) can replace one function and be tested against it.
#include "core/tensor.h"
#include "model/config.h"

namespace attnscope::ops {

using MatrixRef = Eigen::Ref<const Matrix>;

// y = x Wᵀ + b, with W in PyTorch's [out, in] layout.
Matrix linear(const MatrixRef& x, const Matrix& weight, const RowVector& bias);

// Per row: (x - mean) / sqrt(var + eps) * gamma + beta (biased variance, as PyTorch).
Matrix layer_norm(const MatrixRef& x, const RowVector& gamma, const RowVector& beta, float eps);

// In place, per row: exp(x - max) / sum.
void softmax_rows(Matrix& x);

// Per row: x - max - log(sum(exp(x - max))).
Matrix log_softmax_rows(const MatrixRef& x);

// ReLU, or GELU in its exact erf form.
void activate(Matrix& x, Activation activation);

}  // namespace attnscope::ops
