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
  if (layer < 0 || layer >= info.layers)
    throw IndexError("layer " + std::to_string(layer) + " is out of range [0, " + std::to_string(info.layers) + ")");
  if (head < 0 || head >= info.heads)
    throw IndexError("head " + std::to_string(head) + " is out of range [0, " + std::to_string(info.heads) + ")");
  const SiteInputs in = site_inputs(session, site, layer, step, expansion);
  if (!info.per_step && (query < 0 || query >= in.q.rows()))
    throw IndexError("query " + std::to_string(query) + " is out of range [0, " + std::to_string(in.q.rows()) + ")");
  const Eigen::Index d_head = in.q.cols() / info.heads;
  const Matrix scores = attention_scores(in.q.block(info.per_step ? 0 : query, head * d_head, 1, d_head),
                                         in.k.middleCols(head * d_head, d_head));
  return scores.row(0);
}

}  // namespace attnscope
