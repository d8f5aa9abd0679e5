#pragma once
// Looking at the vectors themselves: embedding geometry and the raw query-key scores.
#include "decoding/session.h"

namespace attnscope {

// The rows projected on their first two principal components, [n, 2] (rows centred; each
// component's sign chosen so that its largest-magnitude coefficient is positive).
Matrix pca_2d(const Matrix& rows);

// cos(a_i, b_j) for every pair of rows, [rows(a), rows(b)]; a zero row gives 0.
Matrix cosine_similarity(const Matrix& a, const Matrix& b);

// The "factor" row of one head for one query before the softmax: q·kᵀ / sqrt(d_head) over
// every key (softmax of it is the attention row the session captured, before interventions).
// Encoder: `query` is the source position. Decoder self / cross: the query is the position
// generated at `step` by the hypothesis extended as `expansion`. Needs capture.vectors.
// `site` is a name from the model's site table; the scores come from layers/attention.h.
RowVector attention_logits(const DecodeSession& session, const std::string& site, int layer, int head, int query,
                           int step = 0, int expansion = 0);

}  // namespace attnscope
