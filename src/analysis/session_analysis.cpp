#include "analysis/session_analysis.h"

namespace attnscope {

const Tensor& session_attention(const DecodeSession& s, int site, int step, int hypothesis) {
  const SiteTable& sites = s.model().sites();
  if (site < 0 || site >= static_cast<int>(sites.size()))
    throw IndexError("attention site " + std::to_string(site) + " is out of range");
  if (!sites[site].per_step) return trace_attention(s.model(), s.encoder_trace(), site);
  const Tensor& t = site_attention(s.expansion(step, hypothesis).trace.attention, site);
  if (t.empty()) throw Error("attention was not captured: create the session with capture.attention = true");
  return t;
}

SiteInputs site_inputs(const DecodeSession& s, int site, int layer, int step, int hypothesis) {
  const AttentionSiteInfo& info = s.model().sites()[site];
  if (!info.per_step) return trace_site_inputs(s.model(), s.encoder_trace(), site, layer);
  // A family whose attention has no per-head projections (the RNN's one score) has no q/k/v.
  if (s.model().family->attention_layer(site, 0) == nullptr)
    throw InputError("attention site '" + info.name + "' has no query/key/value vectors (its family scores without "
                     "per-head projections): value-weighted attention and attention logits do not apply to it");
  const std::string p = "layers." + std::to_string(layer) + "." + info.vectors;
  SiteInputs in;
  // The query of the position the step predicts from: its last (a step may feed several
  // positions at once, as a decoder-only model's first step runs its whole prompt).
  const Matrix& q = captured_vector(s.expansion(step, hypothesis).trace.vectors, p + "q");
  in.q = q.bottomRows(1);
  if (info.keys == Side::Source) {
    // Keys and values are this layer's projections of the encoder output.
    const Matrix& memory = captured_vector(s.encoder_trace().vectors, "output");
    const MultiHeadAttention& a = site_attention_layer(s.model(), site, layer);
    in.k = a.k_proj(memory);
    in.v = a.v_proj(memory);
    return in;
  }
  // Attention over the target reads every position so far, from this hypothesis' own steps.
  const auto chain = s.lineage(step, hypothesis);
  Eigen::Index positions = 0;
  for (int k = 0; k <= step; ++k) positions += captured_vector(chain[k]->trace.vectors, p + "k").rows();
  in.k.resize(positions, in.q.cols());
  in.v.resize(positions, in.q.cols());
  for (Eigen::Index k = 0, row = 0; k <= step; ++k) {
    const Matrix& keys = captured_vector(chain[k]->trace.vectors, p + "k");
    in.k.middleRows(row, keys.rows()) = keys;
    in.v.middleRows(row, keys.rows()) = captured_vector(chain[k]->trace.vectors, p + "v");
    row += keys.rows();
  }
  return in;
}

Matrix encoder_rollout(const DecodeSession& session) {
  return encoder_rollout(session.model(), session.encoder_trace());
}

Tensor value_weighted_attention(const DecodeSession& session, const std::string& site_name, int step, int expansion) {
  const int site = find_site(session.model().sites(), site_name);
  if (!session.model().sites()[site].per_step)
    return value_weighted_attention(session.model(), session.encoder_trace(), site_name);
  const Tensor& attention = session_attention(session, site, step, expansion);
  std::vector<Matrix> values, out_proj_values;
  for (int l = 0; l < session.model().sites()[site].layers; ++l) {
    values.push_back(site_inputs(session, site, l, step, expansion).v);
    out_proj_values.push_back(site_attention_layer(session.model(), site, l).out_proj.weight.to_matrix());
  }
  std::vector<const Matrix*> out_proj;
  for (const Matrix& w : out_proj_values) out_proj.push_back(&w);
  return value_weighted_attention(attention, values, out_proj);
}

std::vector<std::string> encoder_patterns(const DecodeSession& session) {
  return encoder_patterns(session.model(), session.encoder_trace());
}

}  // namespace attnscope
