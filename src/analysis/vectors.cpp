#include "analysis/vectors.h"

#include "analysis/session_analysis.h"

#include <Eigen/Eigenvalues>
#include <cmath>

namespace attnscope {

Matrix pca_2d(const Matrix& rows) {
  if (rows.rows() < 1 || rows.cols() < 2) throw InputError("PCA needs at least one row of two or more values");
  const Matrix centred = rows.rowwise() - rows.colwise().mean();
  const Eigen::MatrixXd cov = (centred.transpose() * centred).cast<double>();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(cov);  // eigenvalues ascending
  Eigen::MatrixXd components(cov.rows(), 2);
  for (int c = 0; c < 2; ++c) {
    Eigen::VectorXd v = solver.eigenvectors().col(cov.cols() - 1 - c);
    Eigen::Index biggest;
    v.cwiseAbs().maxCoeff(&biggest);
    if (v[biggest] < 0) v = -v;
    components.col(c) = v;
  }
  return (centred.cast<double>() * components).cast<float>();
}

Matrix cosine_similarity(const Matrix& a, const Matrix& b) {
  if (a.cols() != b.cols()) throw InputError("cosine similarity needs vectors of the same width");
  auto unit = [](const Matrix& m) {
    Matrix u = m;
    for (Eigen::Index r = 0; r < u.rows(); ++r) {
      const float n = u.row(r).norm();
      if (n > 0) u.row(r) /= n;
    }
    return u;
  };
  return unit(a) * unit(b).transpose();
}

RowVector attention_logits(const DecodeSession& session, const std::string& site_name, int layer, int head, int query,
                           int step, int expansion) {
  const int site = find_site(session.model().sites(), site_name);
  const AttentionSiteInfo& info = session.model().sites()[site];
  if (!info.per_step) return attention_logits(session.model(), session.encoder_trace(), site_name, layer, head, query);
  check_layer_head(info, layer, head);
  return head_logits(site_inputs(session, site, layer, step, expansion), info.heads, head, 0);
}

}  // namespace attnscope
