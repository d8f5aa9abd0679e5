#pragma once
// Multi-head scaled dot-product attention (Vaswani et al. 2017, §3.2.2).
#include <vector>

#include "layers/basic.h"
#include "layers/edits.h"

namespace attnscope {

// The one place q·kᵀ / sqrt(d_head) is computed: one head's scores before the softmax,
// [rows(q), rows(k)]. q_h, k_h: that head's columns of the queries and keys.
Matrix attention_scores(const ops::MatrixRef& q_h, const ops::MatrixRef& k_h);

// One head's attention weights, the softmax of each row of attention_scores. `causal`: query i
// sees keys 0..i only (a masked weight is exactly 0), for a whole sequence run at once (a
// training pass); a decoder step needs no mask, its cache holds only earlier keys.
Matrix attention_weights(const ops::MatrixRef& q_h, const ops::MatrixRef& k_h, bool causal = false);

struct MultiHeadAttention {
  Linear q_proj, k_proj, v_proj, out_proj;
  int n_heads = 1;

  // For every head h: attn_h = softmax(q_h k_hᵀ / sqrt(d_head)), out_h = attn_h v_h.
  // q: [Tq, d]; k, v: [Tk, d]. Returns the heads concatenated, [Tq, d], before out_proj.
  // If `attn` is given, it receives each head's weights [Tq, Tk] (after any replacement).
  // `edits` may replace a head's weights or zero its output; `first_query` is the position of
  // q's first row (a decoder step's single query sits at its target position). `causal`: query
  // i sees keys 0..i only, for a whole sequence at once (a training pass; a decoder step's cache
  // holds only earlier keys).
  Matrix attend(const ops::MatrixRef& q, const ops::MatrixRef& k, const ops::MatrixRef& v,
                std::vector<Matrix>* attn, const AttentionEdits& edits = {}, int first_query = 0,
                bool causal = false) const;
};

}  // namespace attnscope
