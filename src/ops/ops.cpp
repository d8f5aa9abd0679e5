#include "ops/ops.h"

#include <cmath>

namespace attnscope::ops {

Matrix linear(const MatrixRef& x, const Matrix& weight, const RowVector& bias) {
  Matrix y = x * weight.transpose();
  y.rowwise() += bias;
  return y;
}

Matrix layer_norm(const MatrixRef& x, const RowVector& gamma, const RowVector& beta, float eps) {
  Matrix y(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const float mean = x.row(r).mean();
    const RowVector centred = x.row(r).array() - mean;
    const float var = centred.squaredNorm() / static_cast<float>(x.cols());
    y.row(r) = (centred / std::sqrt(var + eps)).cwiseProduct(gamma) + beta;
  }
  return y;
}

void softmax_rows(Matrix& x) {
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    auto row = x.row(r);
    row = (row.array() - row.maxCoeff()).exp();
    row /= row.sum();
  }
}

Matrix log_softmax_rows(const MatrixRef& x) {
  Matrix y(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const float max = x.row(r).maxCoeff();
    const float log_sum = std::log((x.row(r).array() - max).exp().sum());
    y.row(r) = x.row(r).array() - max - log_sum;
  }
  return y;
}

void activate(Matrix& x, Activation activation) {
  if (activation == Activation::ReLU) {
    x = x.cwiseMax(0.0f);
  } else {
    const float inv_sqrt2 = 0.70710678118654752f;
    x = x.unaryExpr([inv_sqrt2](float v) { return 0.5f * v * (1.0f + std::erf(v * inv_sqrt2)); });
  }
}

}  // namespace attnscope::ops
