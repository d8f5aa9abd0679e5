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
  // Grouped-query attention (Ainslie et al. 2023; multi-query, Shazeer 2019, at 1): the key and
  // value heads, each shared by n_heads / n_kv_heads consecutive query heads (HF's repeat_kv).
  // 0: one per query head.
  int n_kv_heads = 0;

  int kv_heads() const { return n_kv_heads > 0 ? n_kv_heads : n_heads; }
  // The key/value head that query head h reads.
  int kv_head(int h) const { return h / (n_heads / kv_heads()); }

  // For every head h: attn_h = softmax(q_h k_gᵀ / sqrt(d_head)), out_h = attn_h v_g, g = kv_head(h).
  // q: [Tq, n_heads · d_head]; k, v: [Tk, kv_heads() · d_head]. Returns the heads concatenated,
  // [Tq, n_heads · d_head], before out_proj.
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
