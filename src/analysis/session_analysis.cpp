#include "analysis/session_analysis.h"

namespace attnscope {
namespace {

const Matrix& vector_named(const NamedVectors& vectors, const std::string& name) {
  auto it = vectors.find(name);
  if (it == vectors.end())
    throw Error("intermediate vectors were not captured: create the session with capture.vectors = true");
  return it->second;
}

const MultiHeadAttention& attention_layer(const DecodeSession& s, int site, int layer) {
  const MultiHeadAttention* a = s.model().family->attention_layer(site, layer);
  if (!a) throw Error("the " + s.model().sites()[site].name + " attention of this model has no query/key projections");
  return *a;
}

// The site a source-to-source, once-per-source analysis reads (the encoder's self-attention).
int encoder_site(const DecodeSession& s) {
  const SiteTable& sites = s.model().sites();
  for (std::size_t i = 0; i < sites.size(); ++i)
    if (!sites[i].per_step && sites[i].queries == Side::Source && sites[i].keys == Side::Source)
      return static_cast<int>(i);
  throw Error("this model has no self-attention over the source");
}

}  // namespace

const Tensor& session_attention(const DecodeSession& s, int site, int step, int hypothesis) {
  const SiteTable& sites = s.model().sites();
  if (site < 0 || site >= static_cast<int>(sites.size()))
    throw IndexError("attention site " + std::to_string(site) + " is out of range");
  const Tensor& t = sites[site].per_step ? site_attention(s.expansion(step, hypothesis).trace.attention, site)
                                         : site_attention(s.encoder_trace().attention, site);
  if (t.empty()) throw Error("attention was not captured: create the session with capture.attention = true");
  return t;
}

SiteInputs site_inputs(const DecodeSession& s, int site, int layer, int step, int hypothesis) {
  const AttentionSiteInfo& info = s.model().sites()[site];
  // A family whose attention has no per-head projections (the RNN's one score) has no q/k/v.
  if (s.model().family->attention_layer(site, 0) == nullptr)
    throw InputError("attention site '" + info.name + "' has no query/key/value vectors (its family scores without "
                     "per-head projections): value-weighted attention and attention logits do not apply to it");
  const std::string p = "layers." + std::to_string(layer) + "." + info.vectors;
  const NamedVectors& enc = s.encoder_trace().vectors;
  SiteInputs in;
  if (!info.per_step) {  // computed once, over the source: the encoder trace has all three
    in.q = vector_named(enc, p + "q");
    in.k = vector_named(enc, p + "k");
    in.v = vector_named(enc, p + "v");
    return in;
  }
  in.q = vector_named(s.expansion(step, hypothesis).trace.vectors, p + "q").row(0);
  if (info.keys == Side::Source) {
    // Keys and values are this layer's projections of the encoder output.
    const Matrix& memory = vector_named(enc, "output");
    const MultiHeadAttention& a = attention_layer(s, site, layer);
    in.k = a.k_proj(memory);
    in.v = a.v_proj(memory);
    return in;
  }
  // Attention over the target reads every position so far, from this hypothesis' own steps.
  const auto chain = s.lineage(step, hypothesis);
  const Eigen::Index d = in.q.cols();
  in.k.resize(step + 1, d);
  in.v.resize(step + 1, d);
  for (int k = 0; k <= step; ++k) {
    in.k.row(k) = vector_named(chain[k]->trace.vectors, p + "k").row(0);
    in.v.row(k) = vector_named(chain[k]->trace.vectors, p + "v").row(0);
  }
  return in;
}

Matrix encoder_rollout(const DecodeSession& session) {
  return attention_rollout(session_attention(session, encoder_site(session)));
}

Tensor value_weighted_attention(const DecodeSession& session, const std::string& site_name, int step, int expansion) {
  const int site = find_site(session.model().sites(), site_name);
  const Tensor& attention = session_attention(session, site, step, expansion);
  std::vector<Matrix> values;
  std::vector<const Matrix*> out_proj;
  for (int l = 0; l < session.model().sites()[site].layers; ++l) {
    values.push_back(site_inputs(session, site, l, step, expansion).v);
    out_proj.push_back(&attention_layer(session, site, l).out_proj.weight);
  }
  return value_weighted_attention(attention, values, out_proj);
}

std::vector<std::string> encoder_patterns(const DecodeSession& session) {
  const Tensor& a = session_attention(session, encoder_site(session));
  const int layers = a.shape[0], heads = a.shape[1], S = a.shape[2];
  std::vector<std::string> out;
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h)
      out.push_back(attention_pattern(
          Eigen::Map<const Matrix>(a.data.data() + (static_cast<std::size_t>(l) * heads + h) * S * S, S, S)));
  return out;
}

}  // namespace attnscope
