#pragma once
// The analyses of attention_maps.h applied to what a decode session captured. Sites are
// named as in the model's site table (model/sites.h). Those of a once-per-source site are
// encoding_analysis.h's, on the session's encoder trace.
#include <string>
#include <vector>

#include "analysis/attention_maps.h"
#include "analysis/encoding_analysis.h"
#include "decoding/session.h"

namespace attnscope {

// The attention tensor one site captured: for a once-per-source site [layer][head][Q][K]
// (`step` and `hypothesis` are ignored), for a per-step site the step's [layer][head][K] for
// the hypothesis extended as `hypothesis`. Throws for an unknown site, a bad step or
// hypothesis, or attention that was not captured.
const Tensor& session_attention(const DecodeSession& session, int site, int step = 0, int hypothesis = 0);

// Attention rollout through the first once-per-source site whose queries and keys are the
// source (the encoder's self-attention), [S, S]. Needs capture.attention.
Matrix encoder_rollout(const DecodeSession& session);

// ‖α·f(x)‖ for one attention map of the session (shapes as session_attention).
// Needs capture.attention and capture.vectors.
Tensor value_weighted_attention(const DecodeSession& session, const std::string& site, int step = 0, int expansion = 0);

// The pattern class of every head of the encoder's self-attention, [layer * n_heads + head].
// Needs capture.attention.
std::vector<std::string> encoder_patterns(const DecodeSession& session);

// What one head of one site read, recovered from the captured vectors: the queries (one row
// for a per-step site, else one per source position), keys and values [K, d], of layer
// `layer`. Needs capture.vectors. Shared by the analyses that recompute attention.
SiteInputs site_inputs(const DecodeSession& session, int site, int layer, int step, int hypothesis);

}  // namespace attnscope
