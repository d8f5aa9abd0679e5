#pragma once
// Stateless math on row-per-position matrices. Kept apart from the layers so that a faster
// kernel (e.g. hand-written WASM SIMD) can replace one function and be tested against it.
#include "core/tensor.h"
#include "core/architecture.h"
#include "ops/gemm_int8.h"
#include "ops/gemm_simd.h"
#include "ops/weight_matrix.h"

namespace attnscope::ops {

using MatrixRef = Eigen::Ref<const Matrix>;

// y = x Wᵀ + b, with W in PyTorch's [out, in] layout. Computed by matmul_path().
Matrix linear(const MatrixRef& x, const Matrix& weight, const RowVector& bias);

// The same with Eigen's product: the reference the kernel is tested and timed against.
Matrix linear_reference(const MatrixRef& x, const Matrix& weight, const RowVector& bias);

// Which code computes linear(), process-wide: the hand-written kernel of ops/gemm_simd.h (the
// default: Eigen has no WASM SIMD path) or Eigen, for A/B timings and tests in one process.
enum class MatmulPath { Kernel, Eigen };
void set_matmul_path(MatmulPath path);
MatmulPath matmul_path();

// What layer norm's backward needs, per row: x̂ = (x - mean) / sqrt(var + eps) and
// rstd = 1 / sqrt(var + eps).
struct LayerNormStatistics {
  Matrix x_hat;          // [N, d]
  Eigen::VectorXf rstd;  // [N]
};

// Per row: (x - mean) / sqrt(var + eps) * gamma + beta (biased variance, as PyTorch). A training
// pass passes `statistics` to keep x̂ and rstd; inference passes none and does no more work.
Matrix layer_norm(const MatrixRef& x, const RowVector& gamma, const RowVector& beta, float eps,
                  LayerNormStatistics* statistics = nullptr);

// Per row: x / sqrt(mean(x²) + eps) * weight (Zhang & Sennrich 2019; HF's LlamaRMSNorm, in
// binary32). `statistics` keeps x̂ = x / sqrt(mean(x²) + eps) and rstd for a backward pass.
Matrix rms_norm(const MatrixRef& x, const RowVector& weight, float eps, LayerNormStatistics* statistics = nullptr);

// In place, per row: exp(x - max) / sum.
void softmax_rows(Matrix& x);

// Per row: x - max - log(sum(exp(x - max))).
Matrix log_softmax_rows(const MatrixRef& x);

// One row's normaliser: log_prob(x_i) is element i of log_softmax_rows, to the bit, so a caller
// that needs a few log-probabilities of a vocabulary-wide row skips writing all of them.
struct LogSoftmax {
  float max = 0.0f, log_sum = 0.0f;
  float log_prob(float x) const { return x - max - log_sum; }
  Matrix log_probs(const MatrixRef& row) const { return (row.array() - max - log_sum).matrix(); }  // all of them
};
LogSoftmax log_softmax_of_row(const MatrixRef& row);  // row: [1, n]

// ReLU, GELU in its exact erf form, Swish x·σ(x), or GELU's tanh approximation
// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) (Hendrycks & Gimpel 2016; GPT-2's gelu_new).
void activate(Matrix& x, Activation activation);

// In place, elementwise: the derivative of activate's function at x (for a backward pass).
//   ReLU [x > 0];  GELU Φ(x) + x·φ(x);  Swish σ(x)·(1 + x·(1 - σ(x)));
//   GELUTanh 0.5·(1 + t) + 0.5·x·(1 - t²)·√(2/π)·(1 + 3·0.044715·x²),  t = tanh(√(2/π)·(x + 0.044715·x³)).
void activation_derivative(Matrix& x, Activation activation);

}  // namespace attnscope::ops
