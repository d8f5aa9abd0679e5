#pragma once
// The analyses of attention_maps.h applied to what a decode session captured.
#include <string>
#include <vector>

#include "analysis/attention_maps.h"
#include "decoding/session.h"
#include "model/interventions.h"

namespace attnscope {

// Attention rollout through the encoder, [S, S]. Needs capture.attention.
Matrix encoder_rollout(const DecodeSession& session);

// ‖α·f(x)‖ for one attention map of the session: the encoder's ([layer][head][S][S]; `step`
// and `expansion` are ignored), or a step's decoder self-attention ([layer][head][t+1]) or
// cross-attention ([layer][head][S]) for the hypothesis extended as `expansion`.
// Needs capture.attention and capture.vectors.
Tensor value_weighted_attention(const DecodeSession& session, AttentionSite site, int step = 0, int expansion = 0);

// The pattern class of every encoder head, [layer * n_heads + head]. Needs capture.attention.
std::vector<std::string> encoder_patterns(const DecodeSession& session);

}  // namespace attnscope
