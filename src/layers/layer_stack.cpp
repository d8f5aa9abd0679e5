#include "layers/layer_stack.h"

#include <type_traits>

namespace attnscope::train {
namespace {

// A residual sub-layer, forward:  post: LN(x + drop(f(x)));  pre: x + drop(f(LN(x))).
template <class F>
Matrix sublayer_forward(const Matrix& x, const NormParams& norm, const LayerSettings& s, NormCache& norm_cache,
                        Matrix& drop_mask, float dropout, Random* random, F f) {
  if (s.norm == NormPosition::Pre) {
    const Matrix h = layer_norm_forward(norm, s.eps, x, norm_cache);
    return x + dropout_forward(f(h), dropout, random, drop_mask);
  }
  const Matrix sum = x + dropout_forward(f(x), dropout, random, drop_mask);
  return layer_norm_forward(norm, s.eps, sum, norm_cache);
}

// Backward of the above; `f_back(d_out_of_f)` returns the gradient at f's input.
template <class FBack>
Matrix sublayer_backward(const Matrix& dy, const NormParams& norm, NormParams* norm_grad, const LayerSettings& s,
                         const NormCache& norm_cache, const Matrix& drop_mask, FBack f_back) {
  if (s.norm == NormPosition::Pre) {
    const Matrix dh = f_back(dropout_backward(dy, drop_mask));
    return dy + layer_norm_backward(norm, norm_grad, norm_cache, dh);
  }
  const Matrix d_sum = layer_norm_backward(norm, norm_grad, norm_cache, dy);
  return d_sum + f_back(dropout_backward(d_sum, drop_mask));
}

template <class Layer>
constexpr bool kHasCrossAttention = std::is_same_v<Layer, DecoderLayerParams>;

bool has_ffn(const FeedForwardParams& ffn) { return ffn.fc1.weight.size() != 0; }

}  // namespace

template <class Layer>
Matrix layers_forward(const std::vector<Layer>& layers, const LayerSettings& s, const StackRows& rows, Matrix x,
                      float dropout, Random* random, std::vector<LayerCache>& caches) {
  caches.resize(layers.size());
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const Layer& p = layers[l];
    LayerCache& lc = caches[l];
    x = sublayer_forward(x, p.self_attn_norm, s, lc.self_attn_norm, lc.self_attn_drop, dropout, random,
                         [&](const Matrix& h) {
                           return attention_forward(p.self_attn, s.n_heads, h, h, rows.segments, rows.segments,
                                                    rows.causal, lc.self_attn);
                         });
    if constexpr (kHasCrossAttention<Layer>)
      x = sublayer_forward(x, p.cross_attn_norm, s, lc.cross_attn_norm, lc.cross_attn_drop, dropout, random,
                           [&](const Matrix& h) {
                             return attention_forward(p.cross_attn, s.n_heads, h, *rows.memory, rows.segments,
                                                      rows.memory_segments, /*causal=*/false, lc.cross_attn);
                           });
    if (has_ffn(p.ffn))
      x = sublayer_forward(x, p.ffn_norm, s, lc.ffn_norm, lc.ffn_drop, dropout, random,
                           [&](const Matrix& h) { return ffn_forward(p.ffn, s.activation, h, lc.ffn); });
  }
  return x;
}

template <class Layer>
Matrix layers_backward(const std::vector<Layer>& layers, std::vector<Layer>* grads, const LayerSettings& s,
                       const StackRows& rows, const std::vector<LayerCache>& caches, Matrix dy, Matrix* d_memory) {
  for (std::size_t l = layers.size(); l-- > 0;) {
    const Layer& p = layers[l];
    Layer* g = grads ? &(*grads)[l] : nullptr;
    const LayerCache& lc = caches[l];
    if (has_ffn(p.ffn))
      dy = sublayer_backward(dy, p.ffn_norm, g ? &g->ffn_norm : nullptr, s, lc.ffn_norm, lc.ffn_drop,
                             [&](const Matrix& d) {
                               return ffn_backward(p.ffn, g ? &g->ffn : nullptr, s.activation, lc.ffn, d);
                             });
    if constexpr (kHasCrossAttention<Layer>)
      dy = sublayer_backward(dy, p.cross_attn_norm, g ? &g->cross_attn_norm : nullptr, s, lc.cross_attn_norm,
                             lc.cross_attn_drop, [&](const Matrix& d) {
                               AttentionInputGrads a =
                                   attention_backward(p.cross_attn, g ? &g->cross_attn : nullptr, s.n_heads,
                                                      rows.segments, rows.memory_segments, lc.cross_attn, d);
                               *d_memory += a.dx_kv;
                               return a.dx_q;
                             });
    dy = sublayer_backward(dy, p.self_attn_norm, g ? &g->self_attn_norm : nullptr, s, lc.self_attn_norm,
                           lc.self_attn_drop, [&](const Matrix& d) {
                             AttentionInputGrads a = attention_backward(p.self_attn, g ? &g->self_attn : nullptr,
                                                                        s.n_heads, rows.segments, rows.segments,
                                                                        lc.self_attn, d);
                             return Matrix(a.dx_q + a.dx_kv);
                           });
  }
  return dy;
}

template Matrix layers_forward(const std::vector<EncoderLayerParams>&, const LayerSettings&, const StackRows&, Matrix,
                               float, Random*, std::vector<LayerCache>&);
template Matrix layers_forward(const std::vector<DecoderLayerParams>&, const LayerSettings&, const StackRows&, Matrix,
                               float, Random*, std::vector<LayerCache>&);
template Matrix layers_backward(const std::vector<EncoderLayerParams>&, std::vector<EncoderLayerParams>*,
                                const LayerSettings&, const StackRows&, const std::vector<LayerCache>&, Matrix,
                                Matrix*);
template Matrix layers_backward(const std::vector<DecoderLayerParams>&, std::vector<DecoderLayerParams>*,
                                const LayerSettings&, const StackRows&, const std::vector<LayerCache>&, Matrix,
                                Matrix*);

template <class Layer>
Matrix stack_forward(const Stack<Layer>& stack, const LayerSettings& settings, const StackRows& rows,
                     const Matrix& inputs, float dropout, Random* random, StackCache& cache) {
  Matrix x = dropout_forward(add_positions(inputs, stack.positions, rows.segments), dropout, random, cache.input_drop);
  x = layers_forward(stack.layers, settings, rows, std::move(x), dropout, random, cache.layers);
  return stack.final_norm ? layer_norm_forward(*stack.final_norm, settings.eps, x, cache.final_norm) : x;
}

template <class Layer>
Matrix stack_backward(const Stack<Layer>& stack, const StackGrads<Layer>& grads, const LayerSettings& settings,
                      const StackRows& rows, const StackCache& cache, Matrix dy, Matrix* d_memory) {
  if (stack.final_norm) dy = layer_norm_backward(*stack.final_norm, grads.final_norm, cache.final_norm, dy);
  dy = layers_backward(stack.layers, grads.layers, settings, rows, cache.layers, std::move(dy), d_memory);
  Matrix d_inputs = dropout_backward(dy, cache.input_drop);
  if (grads.positions) add_positions_backward(*grads.positions, rows.segments, d_inputs);
  return d_inputs;
}

template Matrix stack_forward(const Stack<EncoderLayerParams>&, const LayerSettings&, const StackRows&, const Matrix&,
                              float, Random*, StackCache&);
template Matrix stack_forward(const Stack<DecoderLayerParams>&, const LayerSettings&, const StackRows&, const Matrix&,
                              float, Random*, StackCache&);
template Matrix stack_backward(const Stack<EncoderLayerParams>&, const StackGrads<EncoderLayerParams>&,
                               const LayerSettings&, const StackRows&, const StackCache&, Matrix, Matrix*);
template Matrix stack_backward(const Stack<DecoderLayerParams>&, const StackGrads<DecoderLayerParams>&,
                               const LayerSettings&, const StackRows&, const StackCache&, Matrix, Matrix*);

Matrix add_positions(const Matrix& inputs, const Matrix& positions, const std::vector<Segment>& segments) {
  Matrix x(inputs.rows(), inputs.cols());
  for (const Segment& s : segments)
    x.middleRows(s.begin, s.length) = inputs.middleRows(s.begin, s.length) + positions.topRows(s.length);
  return x;
}

void add_positions_backward(Matrix& positions_grad, const std::vector<Segment>& segments, const Matrix& dy) {
  for (const Segment& s : segments) positions_grad.topRows(s.length) += dy.middleRows(s.begin, s.length);
}

std::vector<Segment> segments_of_lengths(const std::vector<int>& lengths) {
  std::vector<Segment> segments;
  int begin = 0;
  for (int length : lengths) {
    segments.push_back({begin, length});
    begin += length;
  }
  return segments;
}

}  // namespace attnscope::train
