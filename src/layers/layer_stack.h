#pragma once
// A stack of residual layers, forward and backward, shared by every transformer-style family's
// training and attribution pass: the transformer's encoder (self-attention, FFN) and decoder
// (causal self-attention, cross-attention, FFN), the decoder-only stack (causal, its FFN
// optional) and BERT's encoder. The forward is the inference layers' own (layer_forward of
// layers/transformer_layer.h, on the same layer structs) run by a BatchPass, which keeps what the
// backward needs; the backward runs the same arrangement in reverse. Each layer's own fields give
// its heads, activation, epsilon and norm position.
#include <utility>
#include <vector>

#include "layers/blocks.h"
#include "layers/params.h"
#include "layers/transformer_layer.h"

namespace attnscope::train {

// What a stack's attention reads: its own rows sentence by sentence and, for a translation
// decoder, the encoder's output (cross-attention).
struct StackRows {
  std::vector<Segment> segments;         // rows of each sentence
  bool causal = false;                   // query t sees its sentence's keys 0..t only
  const Matrix* memory = nullptr;        // [S, d] cross-attention's keys and values
  std::vector<Segment> memory_segments;  // rows of each sentence in `memory`
};

struct LayerCache {
  NormCache self_attn_norm;  // post: of x + attn; pre: of x
  AttentionCache self_attn;
  Matrix self_attn_drop;     // [N, d] dropout mask (empty without dropout)
  NormCache cross_attn_norm;
  AttentionCache cross_attn;
  Matrix cross_attn_drop;
  NormCache ffn_norm;
  FeedForwardCache ffn;
  Matrix ffn_drop;

  NormCache& norm(Sublayer which) {
    return which == Sublayer::SelfAttention ? self_attn_norm
           : which == Sublayer::CrossAttention ? cross_attn_norm
                                                : ffn_norm;
  }
  Matrix& dropout_mask(Sublayer which) {
    return which == Sublayer::SelfAttention ? self_attn_drop
           : which == Sublayer::CrossAttention ? cross_attn_drop
                                                : ffn_drop;
  }
};

// One layer over a packed batch (StackRows), keeping what its backward needs in `cache`, with a
// dropout on each sub-layer's output: post LN(x + drop(f(x))), pre x + drop(f(LN(x))).
struct BatchPass {
  const StackRows& rows;
  LayerCache& cache;
  float dropout;
  Random* random;

  template <class F>
  Matrix sublayer(const Matrix& x, const LayerNorm& norm, NormPosition where, Sublayer which, F f) {
    NormCache& norm_cache = cache.norm(which);
    Matrix& mask = cache.dropout_mask(which);
    return residual_with(
        x, [&](const Matrix& m) { return layer_norm_forward(norm, m, norm_cache); }, where,
        [&](const Matrix& h) { return dropout_forward(f(h), dropout, random, mask); });
  }
  Matrix self_attention(const MultiHeadAttention& attn, const Matrix& h) {
    return attention_forward(attn, h, h, rows.segments, rows.segments, rows.causal, cache.self_attn);
  }
  Matrix cross_attention(const MultiHeadAttention& attn, const Matrix& h) {
    return attention_forward(attn, h, *rows.memory, rows.segments, rows.memory_segments, /*causal=*/false,
                             cache.cross_attn);
  }
  Matrix feed_forward(const FeedForward& ffn, const Matrix& h) { return ffn_forward(ffn, h, cache.ffn); }
  void output(const Matrix&) {}
};

// A whole stack: x = drop(inputs + positions), the layers, then `final_norm` where there is one
// (pre-norm). The transformer runs two (encoder, decoder), the decoder-only family one.
template <class Layer>
struct Stack {
  const std::vector<Layer>& layers;
  const LayerNorm* final_norm;  // nullptr: none
  const Matrix& positions;      // [max_positions, d], learned or sinusoidal
};
// Where a stack's backward adds its gradients; nullptr: not computed (all nullptr: input gradient only).
template <class Layer>
struct StackGrads {
  std::vector<Layer>* layers = nullptr;
  LayerNorm* final_norm = nullptr;
  Matrix* positions = nullptr;  // learned positions only
};
struct StackCache {
  Matrix input_drop;  // dropout mask on the embeddings
  std::vector<LayerCache> layers;
  NormCache final_norm;
};

// The positions of a stack's packed rows: row r of a sentence starting at `begin` is at r - begin.
// inputs + positions[position of each row]; positions: [max_positions, d].
Matrix add_positions(const Matrix& inputs, const Matrix& positions, const std::vector<Segment>& segments);
// positions_grad[position of each row] += dy's row.
void add_positions_backward(Matrix& positions_grad, const std::vector<Segment>& segments, const Matrix& dy);

// The rows of every sentence: lengths [3, 2] -> {0, 3}, {3, 2}.
std::vector<Segment> segments_of_lengths(const std::vector<int>& lengths);

namespace stack_detail {

// Backward of a BatchPass sub-layer; `f_back(d_out_of_f)` returns the gradient at f's input.
template <class FBack>
Matrix sublayer_backward(const Matrix& dy, const LayerNorm& norm, LayerNorm* norm_grad, NormPosition where,
                         const NormCache& norm_cache, const Matrix& drop_mask, FBack f_back) {
  if (where == NormPosition::Pre) {
    const Matrix dh = f_back(dropout_backward(dy, drop_mask));
    return dy + layer_norm_backward(norm, norm_grad, norm_cache, dh);
  }
  const Matrix d_sum = layer_norm_backward(norm, norm_grad, norm_cache, dy);
  return d_sum + f_back(dropout_backward(d_sum, drop_mask));
}

}  // namespace stack_detail

template <class Layer>
Matrix layers_forward(const std::vector<Layer>& layers, const StackRows& rows, Matrix x, float dropout,
                      Random* random, std::vector<LayerCache>& caches) {
  caches.resize(layers.size());
  for (std::size_t l = 0; l < layers.size(); ++l) {
    BatchPass pass{rows, caches[l], dropout, random};
    x = layer_forward(layers[l], std::move(x), pass);
  }
  return x;
}

// From the gradient at the last layer's output back to the first one's input. Adds the layers'
// gradients into `grads` (nullptr: none) and the cross-attention's into `d_memory` (a matrix
// shaped like rows.memory; nullptr without cross-attention).
template <class Layer>
Matrix layers_backward(const std::vector<Layer>& layers, std::vector<Layer>* grads, const StackRows& rows,
                       const std::vector<LayerCache>& caches, Matrix dy, Matrix* d_memory) {
  using namespace stack_detail;
  for (std::size_t l = layers.size(); l-- > 0;) {
    const Layer& p = layers[l];
    Layer* g = grads ? &(*grads)[l] : nullptr;
    const LayerCache& lc = caches[l];
    if (has_ffn(p.ffn))
      dy = sublayer_backward(dy, p.ffn_norm, g ? &g->ffn_norm : nullptr, p.norm_position, lc.ffn_norm, lc.ffn_drop,
                             [&](const Matrix& d) { return ffn_backward(p.ffn, g ? &g->ffn : nullptr, lc.ffn, d); });
    if constexpr (HasCrossAttention<Layer>::value)
      dy = sublayer_backward(dy, p.cross_attn_norm, g ? &g->cross_attn_norm : nullptr, p.norm_position,
                             lc.cross_attn_norm, lc.cross_attn_drop, [&](const Matrix& d) {
                               AttentionInputGrads a =
                                   attention_backward(p.cross_attn, g ? &g->cross_attn : nullptr, rows.segments,
                                                      rows.memory_segments, lc.cross_attn, d);
                               *d_memory += a.dx_kv;
                               return a.dx_q;
                             });
    dy = sublayer_backward(dy, p.self_attn_norm, g ? &g->self_attn_norm : nullptr, p.norm_position, lc.self_attn_norm,
                           lc.self_attn_drop, [&](const Matrix& d) {
                             AttentionInputGrads a = attention_backward(p.self_attn, g ? &g->self_attn : nullptr,
                                                                        rows.segments, rows.segments, lc.self_attn, d);
                             return Matrix(a.dx_q + a.dx_kv);
                           });
  }
  return dy;
}

template <class Layer>
Matrix stack_forward(const Stack<Layer>& stack, const StackRows& rows, const Matrix& inputs, float dropout,
                     Random* random, StackCache& cache) {
  Matrix x = dropout_forward(add_positions(inputs, stack.positions, rows.segments), dropout, random, cache.input_drop);
  x = layers_forward(stack.layers, rows, std::move(x), dropout, random, cache.layers);
  return stack.final_norm ? layer_norm_forward(*stack.final_norm, x, cache.final_norm) : x;
}

// The gradient at the stack's inputs (before positions were added).
template <class Layer>
Matrix stack_backward(const Stack<Layer>& stack, const StackGrads<Layer>& grads, const StackRows& rows,
                      const StackCache& cache, Matrix dy, Matrix* d_memory) {
  if (stack.final_norm) dy = layer_norm_backward(*stack.final_norm, grads.final_norm, cache.final_norm, dy);
  dy = layers_backward(stack.layers, grads.layers, rows, cache.layers, std::move(dy), d_memory);
  Matrix d_inputs = dropout_backward(dy, cache.input_drop);
  if (grads.positions) add_positions_backward(*grads.positions, rows.segments, d_inputs);
  return d_inputs;
}

}  // namespace attnscope::train
