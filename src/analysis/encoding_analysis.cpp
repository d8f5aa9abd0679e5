#include "analysis/encoding_analysis.h"

namespace attnscope {

const Matrix& captured_vector(const NamedVectors& vectors, const std::string& name) {
  auto it = vectors.find(name);
  if (it == vectors.end())
    throw Error("intermediate vectors were not captured: create the session with capture.vectors = true");
  return it->second;
}

void check_layer_head(const AttentionSiteInfo& site, int layer, int head) {
  if (layer < 0 || layer >= site.layers)
    throw IndexError("layer " + std::to_string(layer) + " is out of range [0, " + std::to_string(site.layers) + ")");
  if (head < 0 || head >= site.heads)
    throw IndexError("head " + std::to_string(head) + " is out of range [0, " + std::to_string(site.heads) + ")");
}

const MultiHeadAttention& site_attention_layer(const Model& model, int site, int layer) {
  const MultiHeadAttention* a = model.family->attention_layer(site, layer);
  if (!a) throw Error("the " + model.sites()[site].name + " attention of this model has no query/key projections");
  return *a;
}

int source_self_attention_site(const SiteTable& sites) {
  for (std::size_t i = 0; i < sites.size(); ++i)
    if (!sites[i].per_step && sites[i].queries == Side::Source && sites[i].keys == Side::Source)
      return static_cast<int>(i);
  throw Error("this model has no self-attention over the source");
}

const Tensor& trace_attention(const Model& model, const EncoderTrace& trace, int site) {
  const SiteTable& sites = model.sites();
  if (site < 0 || site >= static_cast<int>(sites.size()))
    throw IndexError("attention site " + std::to_string(site) + " is out of range");
  if (sites[site].per_step) throw InputError("attention site '" + sites[site].name + "' is computed per step, not once per source");
  const Tensor& t = site_attention(trace.attention, site);
  if (t.empty()) throw Error("attention was not captured: create the session with capture.attention = true");
  return t;
}

SiteInputs trace_site_inputs(const Model& model, const EncoderTrace& trace, int site, int layer) {
  const AttentionSiteInfo& info = model.sites()[site];
  // A family whose attention has no per-head projections (the RNN's one score) has no q/k/v.
  if (model.family->attention_layer(site, 0) == nullptr)
    throw InputError("attention site '" + info.name + "' has no query/key/value vectors (its family scores without "
                     "per-head projections): value-weighted attention and attention logits do not apply to it");
  const std::string p = "layers." + std::to_string(layer) + "." + info.vectors;
  return {captured_vector(trace.vectors, p + "q"), captured_vector(trace.vectors, p + "k"),
          captured_vector(trace.vectors, p + "v")};
}

Matrix encoder_rollout(const Model& model, const EncoderTrace& trace) {
  return attention_rollout(trace_attention(model, trace, source_self_attention_site(model.sites())));
}

std::vector<std::string> encoder_patterns(const Model& model, const EncoderTrace& trace) {
  const Tensor& a = trace_attention(model, trace, source_self_attention_site(model.sites()));
  const int layers = a.shape[0], heads = a.shape[1], S = a.shape[2];
  std::vector<std::string> out;
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h)
      out.push_back(attention_pattern(
          Eigen::Map<const Matrix>(a.data.data() + (static_cast<std::size_t>(l) * heads + h) * S * S, S, S)));
  return out;
}

Tensor value_weighted_attention(const Model& model, const EncoderTrace& trace, const std::string& site_name) {
  const int site = find_site(model.sites(), site_name);
  const Tensor& attention = trace_attention(model, trace, site);
  std::vector<Matrix> values, out_proj_values;
  for (int l = 0; l < model.sites()[site].layers; ++l) {
    values.push_back(trace_site_inputs(model, trace, site, l).v);
    out_proj_values.push_back(site_attention_layer(model, site, l).out_proj.weight.to_matrix());
  }
  std::vector<const Matrix*> out_proj;
  for (const Matrix& w : out_proj_values) out_proj.push_back(&w);
  return value_weighted_attention(attention, values, out_proj);
}

RowVector attention_row(const Model& model, const EncoderTrace& trace, const std::string& site_name, int layer, int head,
                        int query) {
  const int site = find_site(model.sites(), site_name);
  check_layer_head(model.sites()[site], layer, head);
  const Tensor& a = trace_attention(model, trace, site);
  const int H = a.shape[1], Q = a.shape[2], K = a.shape[3];
  if (query < 0 || query >= Q) throw IndexError("query " + std::to_string(query) + " is out of range [0, " + std::to_string(Q) + ")");
  return Eigen::Map<const RowVector>(a.data.data() + ((static_cast<std::size_t>(layer) * H + head) * Q + query) * K, K);
}

RowVector head_logits(const SiteInputs& in, int n_heads, int head, int query_row) {
  const Eigen::Index d_head = in.q.cols() / n_heads;
  const Matrix scores = attention_scores(in.q.block(query_row, head * d_head, 1, d_head), in.k.middleCols(head * d_head, d_head));
  return scores.row(0);
}

RowVector attention_logits(const Model& model, const EncoderTrace& trace, const std::string& site_name, int layer, int head,
                           int query) {
  const int site = find_site(model.sites(), site_name);
  const AttentionSiteInfo& info = model.sites()[site];
  if (info.per_step) throw InputError("attention site '" + info.name + "' is computed per step, not once per source");
  check_layer_head(info, layer, head);
  const SiteInputs in = trace_site_inputs(model, trace, site, layer);
  if (query < 0 || query >= in.q.rows())
    throw IndexError("query " + std::to_string(query) + " is out of range [0, " + std::to_string(in.q.rows()) + ")");
  return head_logits(in, info.heads, head, query);
}

}  // namespace attnscope
