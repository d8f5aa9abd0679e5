#include "analysis/attention_maps.h"

#include <cmath>

namespace attnscope {

Matrix attention_rollout(const Tensor& a) {
  if (a.shape.size() != 4 || a.shape[2] != a.shape[3])
    throw InputError("attention rollout needs encoder attention of shape [layer][head][S][S]");
  const int layers = a.shape[0], heads = a.shape[1], S = a.shape[2];
  Matrix rollout = Matrix::Identity(S, S);
  for (int l = 0; l < layers; ++l) {
    Matrix mean = Matrix::Zero(S, S);
    for (int h = 0; h < heads; ++h)
      mean += Eigen::Map<const Matrix>(a.data.data() + (static_cast<std::size_t>(l) * heads + h) * S * S, S, S);
    Matrix with_residual = 0.5f * (mean / static_cast<float>(heads)) + 0.5f * Matrix::Identity(S, S);
    for (int r = 0; r < S; ++r) with_residual.row(r) /= with_residual.row(r).sum();
    rollout = with_residual * rollout;
  }
  return rollout;
}

Tensor value_weighted_attention(const Tensor& attention, const std::vector<Matrix>& values,
                                const std::vector<const Matrix*>& out_proj) {
  const std::size_t dims = attention.shape.size();
  if ((dims != 3 && dims != 4) || values.size() != static_cast<std::size_t>(attention.shape[0]) ||
      out_proj.size() != values.size())
    throw InputError("value-weighted attention needs attention [layer][head](Q)[K] and values/out_proj per layer");
  const int layers = attention.shape[0], heads = attention.shape[1];
  const int K = attention.shape.back();
  const int Q = dims == 4 ? attention.shape[2] : 1;
  Tensor out = attention;
  for (int l = 0; l < layers; ++l) {
    const Matrix& v = values[l];
    const Matrix& w_o = *out_proj[l];
    if (v.rows() != K || v.cols() % heads != 0 || w_o.cols() != v.cols())
      throw InputError("value vectors of layer " + std::to_string(l) + " do not match the attention map");
    const Eigen::Index d_head = v.cols() / heads;
    for (int h = 0; h < heads; ++h) {
      // ‖W_O^h v_j^h‖ for every key j.
      const Matrix sent = v.middleCols(h * d_head, d_head) * w_o.middleCols(h * d_head, d_head).transpose();
      for (int q = 0; q < Q; ++q)
        for (int k = 0; k < K; ++k) {
          float& x = out.data[((static_cast<std::size_t>(l) * heads + h) * Q + q) * K + k];
          x *= sent.row(k).norm();
        }
    }
  }
  return out;
}

std::string attention_pattern(const Matrix& m) {
  const Eigen::Index Q = m.rows(), K = m.cols();
  if (K < 2 || Q < 1) return "heterogeneous";
  if (m.rowwise().maxCoeff().mean() < 2.0f / K) return "heterogeneous";  // flat
  double band1 = 0.0, band3 = 0.0;
  for (Eigen::Index i = 0; i < Q; ++i)
    for (Eigen::Index j = 0; j < K; ++j) {
      const Eigen::Index dist = std::abs(i - j);
      if (dist <= 1) band1 += m(i, j);
      if (dist <= 3) band3 += m(i, j);
    }
  band1 /= Q;
  band3 /= Q;
  const double column = (m.colwise().sum() / static_cast<float>(Q)).maxCoeff();
  if (band1 >= 0.5) return "diagonal";
  if (column >= 0.5) return "vertical";
  if (band1 >= 0.3 && column >= 0.3) return "vertical+diagonal";
  if (band3 >= 0.6) return "block";
  return "heterogeneous";
}

}  // namespace attnscope
