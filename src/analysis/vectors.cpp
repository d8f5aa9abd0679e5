#include "analysis/vectors.h"

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

namespace {

const Matrix& named(const NamedVectors& v, const std::string& name) {
  auto it = v.find(name);
  if (it == v.end()) throw Error("intermediate vectors were not captured: create the session with capture.vectors = true");
  return it->second;
}

}  // namespace

RowVector attention_logits(const DecodeSession& session, AttentionSite site, int layer, int head, int query, int step,
                           int expansion) {
  const Model& model = session.model();
  const ModelConfig& c = model.config;
  const int layers = site == AttentionSite::Encoder ? c.n_encoder_layers : c.n_decoder_layers;
  if (layer < 0 || layer >= layers)
    throw IndexError("layer " + std::to_string(layer) + " is out of range [0, " + std::to_string(layers) + ")");
  if (head < 0 || head >= c.n_heads)
    throw IndexError("head " + std::to_string(head) + " is out of range [0, " + std::to_string(c.n_heads) + ")");
  const int d_head = c.d_head();
  const std::string p = "layers." + std::to_string(layer) + ".";
  const NamedVectors& enc = session.encoder_trace().vectors;

  RowVector q;
  Matrix k;
  if (site == AttentionSite::Encoder) {
    const Matrix& queries = named(enc, p + "q");
    if (query < 0 || query >= queries.rows())
      throw IndexError("query " + std::to_string(query) + " is out of range [0, " + std::to_string(queries.rows()) + ")");
    q = queries.row(query);
    k = named(enc, p + "k");
  } else {
    const auto& history = session.history();
    if (step < 0 || step >= static_cast<int>(history.size()))
      throw IndexError("step " + std::to_string(step) + " is out of range: " + std::to_string(history.size()) + " steps taken");
    const auto& expansions = history[step].expansions;
    if (expansion < 0 || expansion >= static_cast<int>(expansions.size()))
      throw IndexError("hypothesis " + std::to_string(expansion) + " is out of range at step " + std::to_string(step));
    const Expansion& e = expansions[expansion];
    if (site == AttentionSite::Cross) {
      q = named(e.trace.vectors, p + "cross_q").row(0);
      k = model.decoder_layers[layer].cross_attn.k_proj(named(enc, "output"));
    } else {
      q = named(e.trace.vectors, p + "self_q").row(0);
      // Keys of this hypothesis' positions 0..step: walk up its beam-tree ancestors.
      k.resize(step + 1, c.d_model);
      int node = e.node;
      for (int s = step; s >= 0; --s) {
        const Expansion* at = nullptr;
        for (const Expansion& x : history[s].expansions)
          if (x.node == node) at = &x;
        if (!at) throw Error("the hypothesis' history is incomplete at step " + std::to_string(s));
        k.row(s) = named(at->trace.vectors, p + "self_k").row(0);
        node = session.tree()[node].parent;
      }
    }
  }
  return (q.segment(head * d_head, d_head) * k.middleCols(head * d_head, d_head).transpose()) /
         std::sqrt(static_cast<float>(d_head));
}

}  // namespace attnscope
