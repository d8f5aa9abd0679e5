// One decoder-only layer: causal self-attention on the KV cache, then (unless d_ff = 0) the
// FFN, each a residual sub-layer, pre- or post-norm (layers/transformer_layer.h).
#include "families/decoder_only/decoder_only.h"
#include "layers/transformer_layer.h"

namespace attnscope::decoder_only {
namespace {

// The new positions of every feed, stacked in order: position t of a feed attends to its cache
// up to t (the causal mask, as a prefix of the cache).
struct FeedPass : InferencePass {
  const std::vector<Feed>& feeds;

  Matrix self_attention(const MultiHeadAttention& attn, const Matrix& in) const {
    const Matrix q = attn.q_proj(in), k = attn.k_proj(in), v = attn.v_proj(in);
    Matrix heads(q.rows(), q.cols());
    Eigen::Index row = 0;
    for (const Feed& feed : feeds) {
      KVCache& cache = *feed.cache;
      const int first = cache.length();  // the position of the feed's first row
      for (int r = 0; r < feed.rows; ++r) cache.append(k.row(row + r), v.row(row + r));
      if (feed.attn) feed.attn->assign(attn.n_heads, Matrix::Zero(feed.rows, first + feed.rows));
      std::vector<Matrix> row_attn;
      for (int r = 0; r < feed.rows; ++r) {
        const int keys = first + r + 1;
        heads.row(row + r) = attn.attend(q.row(row + r), cache.keys().topRows(keys), cache.values().topRows(keys),
                                         feed.attn ? &row_attn : nullptr, edits.self_attn, first + r);
        if (feed.attn)
          for (int h = 0; h < attn.n_heads; ++h) (*feed.attn)[h].row(r).head(keys) = row_attn[h].row(0);
      }
      row += feed.rows;
    }
    const Matrix out = attn.out_proj(heads);
    probe.record_attention("self_", q, k, v, out);
    return out;
  }
};

}  // namespace

Matrix Layer::forward(const Matrix& x, const std::vector<Feed>& feeds, const Probe& probe,
                      const LayerEdits& edits) const {
  FeedPass pass{{probe, edits}, feeds};
  return layer_forward(*this, x, pass);
}

}  // namespace attnscope::decoder_only
