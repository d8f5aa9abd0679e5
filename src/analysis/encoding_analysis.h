#pragma once
// The analyses of attention_maps.h on one encoder trace (what a family's encode() captured), for
// a site computed once per source: rollout, value-weighted attention, the scores before the
// softmax and the heads' pattern classes. The one owner of these for once-per-source sites: a
// decode session's encoder (session_analysis.h) and an encoder-only model's encoding
// (model/encoder_only.h encode_text) both read through them. Sites are named as in the model's
// site table (model/sites.h), never by family.
#include <string>
#include <vector>

#include "analysis/attention_maps.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnscope {

// The first once-per-source site whose queries and keys are the source (an encoder's
// self-attention). Throws Error when the table has none.
int source_self_attention_site(const SiteTable& sites);

// A once-per-source site's captured attention [layer][head][S][S]. Throws for a per-step site or
// attention that was not captured.
const Tensor& trace_attention(const Model& model, const EncoderTrace& trace, int site);

// What one head of one site read: the queries (one row per query position, or one row for a
// per-step site), keys and values [K, d] of layer `layer`.
struct SiteInputs {
  Matrix q, k, v;
};
// Those of a once-per-source site, from the trace's named vectors. Throws InputError for a site
// without per-head projections, Error when the vectors were not captured.
SiteInputs trace_site_inputs(const Model& model, const EncoderTrace& trace, int site, int layer);

// Attention rollout through source_self_attention_site, [S, S]. Needs the attention.
Matrix encoder_rollout(const Model& model, const EncoderTrace& trace);

// The pattern class of every head of source_self_attention_site, [layer * n_heads + head].
std::vector<std::string> encoder_patterns(const Model& model, const EncoderTrace& trace);

// ‖α·f(x)‖ of a once-per-source site, [layer][head][S][S]. Needs the attention and the vectors.
Tensor value_weighted_attention(const Model& model, const EncoderTrace& trace, const std::string& site);

// One head's q·kᵀ/sqrt(d_head) row for source position `query` of a once-per-source site (the
// scores before the softmax, before interventions). Needs the vectors.
RowVector attention_logits(const Model& model, const EncoderTrace& trace, const std::string& site, int layer, int head,
                           int query);

// One head's attention row for source position `query` of a once-per-source site, [S] (the
// softmax of attention_logits' row, or what interventions replaced it by).
RowVector attention_row(const Model& model, const EncoderTrace& trace, const std::string& site, int layer, int head, int query);

// Head `head`'s q·kᵀ/sqrt(d_head) of query row `query_row` of `in` over its keys (n_heads heads
// side by side in the columns): layers/attention.h's scores, shared by every site's logits.
RowVector head_logits(const SiteInputs& in, int n_heads, int head, int query_row);

// The multi-head attention of layer `layer` of site `site`; throws Error where it is not q·kᵀ attention.
const MultiHeadAttention& site_attention_layer(const Model& model, int site, int layer);

// A named vector of a trace; throws Error when the vectors were not captured.
const Matrix& captured_vector(const NamedVectors& vectors, const std::string& name);

// Checks `layer` and `head` against the site's table row (IndexError).
void check_layer_head(const AttentionSiteInfo& site, int layer, int head);

}  // namespace attnscope
