#pragma once
// The building blocks of the training passes, each as a forward that keeps what its backward
// needs (a flat cache struct) and a backward that adds the parameter gradients into a
// same-shaped struct and returns the gradient of its input. A backward given no gradient struct
// (nullptr) returns the input gradient only: attribution's pass (model/differentiable.h) needs no
// parameter gradients. Rows are token positions of a whole batch, packed sentence after sentence
// (no padding rows: see families/transformer/backward.h).
//
// The forwards (blocks_forward.cpp) compute nothing of their own: every formula is the
// inference path's (ops::linear_reference, ops::layer_norm, ops::activate, attention_weights of
// layers/attention.h), called with the optional out-parameters that keep what backward needs.
#include <vector>

#include "core/random.h"
#include "layers/loss.h"
#include "layers/params.h"
#include "ops/ops.h"

namespace attnscope::train {

// y = x Wᵀ + b
Matrix linear_forward(const LinearParams& p, const Matrix& x);
// dW += dyᵀ x, db += Σ_rows dy (unless `bias_gradient`: false), returns dx = dy W.
Matrix linear_backward(const LinearParams& p, LinearParams* grad, const Matrix& x, const Matrix& dy,
                       bool bias_gradient = true);

// The input embeddings of token ids: table[id] · scale per row (InputError naming `what` on an id
// outside the table). Backward: table_grad[id] += d_inputs' row · scale.
Matrix embedding_forward(const Matrix& table, const std::vector<int>& ids, float scale, const char* what);
void embedding_backward(Matrix& table_grad, const std::vector<int>& ids, float scale, const Matrix& d_inputs);

// The same for an output projection kept as a weight [V, d] and a bias [1, V] of their own (the
// transformer's may be the tied embedding): y = x Wᵀ + b, then dW += dyᵀ x, db += Σ_rows dy, dx = dy W.
Matrix projection_forward(const Matrix& weight, const Matrix& bias, const Matrix& x);
Matrix projection_backward(const Matrix& weight, Matrix* weight_grad, Matrix* bias_grad, const Matrix& x,
                           const Matrix& dy);

using NormCache = ops::LayerNormStatistics;  // x̂ [N, d] and rstd [N]
Matrix layer_norm_forward(const NormParams& p, float eps, const Matrix& x, NormCache& cache);
Matrix layer_norm_backward(const NormParams& p, NormParams* grad, const NormCache& cache, const Matrix& dy);

// Inverted dropout on a sub-layer output or the embeddings: keep with probability 1 - rate and
// scale by 1 / (1 - rate) (as torch.nn.Dropout). mask [N, d] is empty when rate == 0.
Matrix dropout_forward(const Matrix& x, float rate, Random* random, Matrix& mask);
Matrix dropout_backward(const Matrix& dy, const Matrix& mask);

struct FeedForwardCache {
  Matrix x;       // [N, d]    input of fc1
  Matrix pre;     // [N, d_ff] fc1(x), before the activation
  Matrix hidden;  // [N, d_ff] act(pre), input of fc2
};
Matrix ffn_forward(const FeedForwardParams& p, Activation act, const Matrix& x, FeedForwardCache& cache);
Matrix ffn_backward(const FeedForwardParams& p, FeedForwardParams* grad, Activation act, const FeedForwardCache& cache,
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
Matrix attention_forward(const AttentionParams& p, int n_heads, const Matrix& x_q, const Matrix& x_kv,
                         const std::vector<Segment>& q_segments, const std::vector<Segment>& kv_segments, bool causal,
                         AttentionCache& cache);
struct AttentionInputGrads {
  Matrix dx_q, dx_kv;  // [Nq, d], [Nk, d]
};
AttentionInputGrads attention_backward(const AttentionParams& p, AttentionParams* grad, int n_heads,
                                       const std::vector<Segment>& q_segments,
                                       const std::vector<Segment>& kv_segments, const AttentionCache& cache,
                                       const Matrix& dy);

}  // namespace attnscope::train
