// One decoder-only layer: causal self-attention on the KV cache, then (unless d_ff = 0) the
// FFN, each a residual sub-layer, pre- or post-norm (layers/basic.h).
#include "families/decoder_only/decoder_only.h"

namespace attnscope::decoder_only {

Matrix Layer::forward(const Matrix& x, const std::vector<Feed>& feeds, const Probe& probe,
                      const LayerEdits& edits) const {
  const bool no_norm = edits.skip_layer_norm;
  Matrix h = residual(x, self_attn_norm, norm_position,
                      [&](const Matrix& in) { return causal_self_attention(in, feeds, probe, edits.self_attn); },
                      {edits.self_attn.skip, no_norm});
  if (!ffn.empty())
    h = residual(h, ffn_norm, norm_position, [&](const Matrix& in) { return ffn(in, probe); },
                 {edits.skip_ffn, no_norm});
  probe.record("output", h);
  return h;
}

Matrix Layer::causal_self_attention(const Matrix& in, const std::vector<Feed>& feeds, const Probe& probe,
                                    const AttentionEdits& edits) const {
  const Matrix q = self_attn.q_proj(in), k = self_attn.k_proj(in), v = self_attn.v_proj(in);
  Matrix heads(q.rows(), q.cols());
  Eigen::Index row = 0;
  for (const Feed& feed : feeds) {
    KVCache& cache = *feed.cache;
    const int first = cache.length();  // the position of the feed's first row
    for (int r = 0; r < feed.rows; ++r) cache.append(k.row(row + r), v.row(row + r));
    if (feed.attn) feed.attn->assign(self_attn.n_heads, Matrix::Zero(feed.rows, first + feed.rows));
    std::vector<Matrix> row_attn;
    for (int r = 0; r < feed.rows; ++r) {
      // Position t sees keys 0..t: the causal mask, as a prefix of the cache.
      const int keys = first + r + 1;
      heads.row(row + r) = self_attn.attend(q.row(row + r), cache.keys().topRows(keys), cache.values().topRows(keys),
                                            feed.attn ? &row_attn : nullptr, edits, first + r);
      if (feed.attn)
        for (int h = 0; h < self_attn.n_heads; ++h) (*feed.attn)[h].row(r).head(keys) = row_attn[h].row(0);
    }
    row += feed.rows;
  }
  const Matrix out = self_attn.out_proj(heads);
  probe.record_attention("self_", q, k, v, out);
  return out;
}

}  // namespace attnscope::decoder_only
