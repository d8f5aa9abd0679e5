#include "ops/ops.h"

#include <atomic>
#include <cmath>

#include "ops/gemm_simd.h"

namespace attnscope::ops {
namespace {
std::atomic<MatmulPath> path{MatmulPath::Kernel};
}  // namespace

void set_matmul_path(MatmulPath p) { path.store(p, std::memory_order_relaxed); }
MatmulPath matmul_path() { return path.load(std::memory_order_relaxed); }

Matrix linear(const MatrixRef& x, const Matrix& weight, const RowVector& bias) {
  if (x.cols() != weight.cols() || bias.size() != weight.rows())
    throw Error("linear: input width " + std::to_string(x.cols()) + ", weight [" + std::to_string(weight.rows()) +
                ", " + std::to_string(weight.cols()) + "], bias " + std::to_string(bias.size()));
  if (matmul_path() == MatmulPath::Eigen) return linear_reference(x, weight, bias);
  Matrix y(x.rows(), weight.rows());
  simd::linear(x.data(), static_cast<int>(x.rows()), static_cast<int>(x.outerStride()), weight.data(),
               static_cast<int>(weight.rows()), static_cast<int>(weight.cols()), bias.data(), y.data(),
               static_cast<int>(y.cols()));
  return y;
}

Matrix linear_reference(const MatrixRef& x, const Matrix& weight, const RowVector& bias) {
  Matrix y = x * weight.transpose();
  y.rowwise() += bias;
  return y;
}

Matrix layer_norm(const MatrixRef& x, const RowVector& gamma, const RowVector& beta, float eps,
                  LayerNormStatistics* statistics) {
  Matrix y(x.rows(), x.cols());
  if (statistics) {
    statistics->x_hat.resize(x.rows(), x.cols());
    statistics->rstd.resize(x.rows());
  }
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const float mean = x.row(r).mean();
    const RowVector centred = x.row(r).array() - mean;
    const float var = centred.squaredNorm() / static_cast<float>(x.cols());
    const float deviation = std::sqrt(var + eps);
    y.row(r) = (centred / deviation).cwiseProduct(gamma) + beta;
    if (statistics) {
      statistics->x_hat.row(r) = centred / deviation;
      statistics->rstd(r) = 1.0f / deviation;
    }
  }
  return y;
}

Matrix rms_norm(const MatrixRef& x, const RowVector& weight, float eps, LayerNormStatistics* statistics) {
  Matrix y(x.rows(), x.cols());
  if (statistics) {
    statistics->x_hat.resize(x.rows(), x.cols());
    statistics->rstd.resize(x.rows());
  }
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const float mean_square = x.row(r).squaredNorm() / static_cast<float>(x.cols());
    const float rstd = 1.0f / std::sqrt(mean_square + eps);
    const RowVector x_hat = x.row(r) * rstd;
    y.row(r) = x_hat.cwiseProduct(weight);
    if (statistics) {
      statistics->x_hat.row(r) = x_hat;
      statistics->rstd(r) = rstd;
    }
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

LogSoftmax log_softmax_of_row(const MatrixRef& row) {
  const float max = row.maxCoeff();
  return {max, std::log((row.array() - max).exp().sum())};
}

Matrix log_softmax_rows(const MatrixRef& x) {
  Matrix y(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    y.row(r) = log_softmax_of_row(x.row(r)).log_probs(x.row(r));
  }
  return y;
}

namespace {
constexpr float kSqrt2OverPi = 0.79788456080286536f;
constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;
constexpr float kGeluTanhCubic = 0.044715f;
}  // namespace

void activate(Matrix& x, Activation activation) {
  if (activation == Activation::ReLU) {
    x = x.cwiseMax(0.0f);
  } else if (activation == Activation::Swish) {
    x = x.unaryExpr([](float v) { return v / (1.0f + std::exp(-v)); });
  } else if (activation == Activation::GELUTanh) {
    x = x.unaryExpr([](float v) {
      return 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * (v + kGeluTanhCubic * v * v * v)));
    });
  } else {
    x = x.unaryExpr([](float v) { return 0.5f * v * (1.0f + std::erf(v * kInvSqrt2)); });
  }
}

void activation_derivative(Matrix& x, Activation activation) {
  if (activation == Activation::ReLU) {
    x = x.unaryExpr([](float v) { return v > 0.0f ? 1.0f : 0.0f; });
  } else if (activation == Activation::Swish) {
    x = x.unaryExpr([](float v) {
      const float sigmoid = 1.0f / (1.0f + std::exp(-v));
      return sigmoid * (1.0f + v * (1.0f - sigmoid));
    });
  } else if (activation == Activation::GELUTanh) {
    x = x.unaryExpr([](float v) {
      const float t = std::tanh(kSqrt2OverPi * (v + kGeluTanhCubic * v * v * v));
      return 0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * kSqrt2OverPi * (1.0f + 3.0f * kGeluTanhCubic * v * v);
    });
  } else {
    x = x.unaryExpr([](float v) {
      return 0.5f * (1.0f + std::erf(v * kInvSqrt2)) + v * kInvSqrt2Pi * std::exp(-0.5f * v * v);
    });
  }
}

}  // namespace attnscope::ops
