#pragma once
// The layers' backward, beside their forward: each block runs the inference layer's own
// formula (ops::linear, ops::layer_norm, ops::activate, attention_weights of layers/attention.h)
// on the inference layer's own weights (layers/basic.h, attention.h, feed_forward.h), keeping
// what its backward needs in a flat cache struct; the backward adds the parameter gradients into
// a same-shaped layer (plain weights: layers/params.h) and returns the gradient of its input. A
// backward given no gradient struct (nullptr) returns the input gradient only: attribution's pass
// (model/differentiable.h) runs on a loaded model's weights, in whatever form the load keeps
// them, and needs no parameter gradients. Rows are token positions of a whole batch, packed
// sentence after sentence (no padding rows: see families/transformer/backward.h).
//
// A weight in the plain layout (training's) is multiplied by Eigen's reference product: with the
// SIMD kernel of inference here, the same toy training run drifted apart natively and in WASM 35
// times faster (losses after 8 epochs 2.8e-5 apart instead of 8e-7, one weight 1.1e-3 apart: an
// Adam step of lr 1e-3). A packed, binary16 or int8 weight (a loaded model's) goes through the
// inference kernel, as the model's own steps do.
#include <vector>

#include "core/random.h"
#include "layers/attention.h"
#include "layers/feed_forward.h"
#include "layers/gated_feed_forward.h"
#include "layers/rms_norm.h"
#include "layers/rotary.h"
#include "layers/loss.h"
#include "ops/ops.h"

namespace attnscope::train {

// y = x Wᵀ + b, W [out, in] in any form.
Matrix projection_forward(const ops::WeightMatrix& weight, const RowVector& bias, const Matrix& x);
// dW += dyᵀ x and db += Σ_rows dy where asked (a plain gradient), returns dx = dy W.
Matrix projection_backward(const ops::WeightMatrix& weight, ops::WeightMatrix* weight_grad, RowVector* bias_grad,
                           const Matrix& x, const Matrix& dy);

Matrix linear_forward(const Linear& p, const Matrix& x);
// As projection_backward into grad's weight and bias (the bias unless `bias_gradient`: false).
Matrix linear_backward(const Linear& p, Linear* grad, const Matrix& x, const Matrix& dy, bool bias_gradient = true);

// The input embeddings of token ids: table[id] · scale per row (InputError naming `what` on an id
// outside the table). Backward: table_grad[id] += d_inputs' row · scale (a plain gradient).
Matrix embedding_forward(const ops::WeightMatrix& table, const std::vector<int>& ids, float scale, const char* what);
void embedding_backward(ops::WeightMatrix& table_grad, const std::vector<int>& ids, float scale,
                        const Matrix& d_inputs);

using NormCache = ops::LayerNormStatistics;  // x̂ [N, d] and rstd [N]
Matrix layer_norm_forward(const LayerNorm& p, const Matrix& x, NormCache& cache);
Matrix layer_norm_backward(const LayerNorm& p, LayerNorm* grad, const NormCache& cache, const Matrix& dy);

// x̂ and rstd kept as layer norm keeps them (x̂ = x · rstd, rstd = 1 / sqrt(mean(x²) + eps)).
Matrix rms_norm_forward(const RMSNorm& p, const Matrix& x, NormCache& cache);
// dx = rstd · (dx̂ - x̂ · mean(dx̂ ∘ x̂)), dx̂ = dy ∘ w; grad->weight += Σ_rows dy ∘ x̂.
Matrix rms_norm_backward(const RMSNorm& p, RMSNorm* grad, const NormCache& cache, const Matrix& dy);

// Rotary positions (layers/rotary.h) are a rotation: the backward turns the gradient back.
// positions[r]: row r's position.
Matrix rotary_backward(const Rotary& rotary, int n_heads, const std::vector<int>& positions, Matrix dy);

// Inverted dropout on a sub-layer output or the embeddings: keep with probability 1 - rate and
// scale by 1 / (1 - rate) (as torch.nn.Dropout). mask [N, d] is empty when rate == 0.
Matrix dropout_forward(const Matrix& x, float rate, Random* random, Matrix& mask);
Matrix dropout_backward(const Matrix& dy, const Matrix& mask);

struct FeedForwardCache {
  Matrix x;       // [N, d]    input of fc1
  Matrix pre;     // [N, d_ff] fc1(x), before the activation
  Matrix hidden;  // [N, d_ff] act(pre), input of fc2
};
Matrix ffn_forward(const FeedForward& p, const Matrix& x, FeedForwardCache& cache);
Matrix ffn_backward(const FeedForward& p, FeedForward* grad, const FeedForwardCache& cache, const Matrix& dy);

struct GatedFeedForwardCache {
  Matrix x;       // [N, d]    input of gate and up
  Matrix gate;    // [N, d_ff] gate(x), before the activation
  Matrix up;      // [N, d_ff] up(x)
  Matrix hidden;  // [N, d_ff] act(gate) ∘ up, input of down
};
Matrix gated_ffn_forward(const GatedFeedForward& p, const Matrix& x, GatedFeedForwardCache& cache);
Matrix gated_ffn_backward(const GatedFeedForward& p, GatedFeedForward* grad, const GatedFeedForwardCache& cache,
                          const Matrix& dy);

// Rows [begin, begin + length) of a packed matrix: one sentence.
struct Segment {
  int begin = 0, length = 0;
};

struct AttentionCache {
  Matrix x_q, x_kv;          // [Nq, d], [Nk, d] inputs of the projections (self-attention: the same rows)
  Matrix q, k, v;            // [Nq, d], [Nk, d], [Nk, d] projections, heads side by side (head h = cols h·dh..)
  std::vector<Matrix> attn;  // [sentence · H + h]: [Tq, Tk] softmax weights
  Matrix context;            // [Nq, d] attn·v of every head, concatenated: the input of out_proj
};

// Multi-head attention of the queries of sentence i (rows q_segments[i] of x_q) over its keys
// (rows kv_segments[i] of x_kv). `causal`: query t sees keys 0..t only (decoder self-attention).
// A sentence never sees another one's rows, which is all a padding mask does.
Matrix attention_forward(const MultiHeadAttention& p, const Matrix& x_q, const Matrix& x_kv,
                         const std::vector<Segment>& q_segments, const std::vector<Segment>& kv_segments, bool causal,
                         AttentionCache& cache);
struct AttentionInputGrads {
  Matrix dx_q, dx_kv;  // [Nq, d], [Nk, d]
};
AttentionInputGrads attention_backward(const MultiHeadAttention& p, MultiHeadAttention* grad,
                                       const std::vector<Segment>& q_segments,
                                       const std::vector<Segment>& kv_segments, const AttentionCache& cache,
                                       const Matrix& dy);

}  // namespace attnscope::train
