#pragma once
// One transformer layer (Vaswani et al. 2017, §3.1), written once for every pass that runs it:
// self-attention, then cross-attention where the layer has one (a translation decoder's), then
// the FFN where the layer has one (an attention-only layer's is empty), each a residual sub-layer
// in the layer's norm arrangement (layers/basic.h residual_with).
//
// What differs between passes is how each part runs over its rows, and that is the Pass's:
//   a whole sentence at once             EncoderPass   (layers/encoder_layer.cpp)
//   a translation decoder's step         StepPass      (layers/decoder_layer.cpp), over key/value caches
//   a decoder-only step                  FeedPass      (families/decoder_only/layer.cpp)
//   training and attribution             BatchPass     (layers/layer_stack.h), over a packed batch,
//                                                      keeping what the backward needs
// A Pass has
//   Matrix sublayer(x, norm, where, Sublayer which, f)   the residual around f, with its norm
//   Matrix self_attention(attn, h), cross_attention(attn, h), feed_forward(ffn, h)
//   void output(y)                                        the layer's output, e.g. to record it
// A Layer is any struct with the fields of EncoderLayer (self_attn, self_attn_norm, ffn,
// ffn_norm, norm_position), and DecoderLayer's cross_attn and cross_attn_norm if it has them.
#include <type_traits>
#include <utility>

#include "layers/attention.h"
#include "layers/edits.h"
#include "layers/feed_forward.h"
#include "layers/probe.h"

namespace attnscope {

enum class Sublayer { SelfAttention, CrossAttention, FeedForward };

template <class Layer, class = void>
struct HasCrossAttention : std::false_type {};
template <class Layer>
struct HasCrossAttention<Layer, std::void_t<decltype(std::declval<Layer>().cross_attn)>> : std::true_type {};

template <class Layer, class Pass>
Matrix layer_forward(const Layer& layer, Matrix x, Pass& pass) {
  x = pass.sublayer(x, layer.self_attn_norm, layer.norm_position, Sublayer::SelfAttention,
                    [&](const Matrix& h) { return pass.self_attention(layer.self_attn, h); });
  if constexpr (HasCrossAttention<Layer>::value)
    x = pass.sublayer(x, layer.cross_attn_norm, layer.norm_position, Sublayer::CrossAttention,
                      [&](const Matrix& h) { return pass.cross_attention(layer.cross_attn, h); });
  if (!layer.ffn.empty())
    x = pass.sublayer(x, layer.ffn_norm, layer.norm_position, Sublayer::FeedForward,
                      [&](const Matrix& h) { return pass.feed_forward(layer.ffn, h); });
  pass.output(x);
  return x;
}

// What the inference passes do alike: each sub-layer takes its intervention (a skipped
// sub-layer still runs, a skipped norm is the identity: layers/basic.h residual), the FFN
// records its hidden activations, and the layer records its output. The passes add the
// attention.
struct InferencePass {
  const Probe& probe;
  const LayerEdits& edits;

  template <class F>
  Matrix sublayer(const Matrix& x, const LayerNorm& norm, NormPosition where, Sublayer which, F f) const {
    return residual(x, norm, where, f, {skipped(which), edits.skip_layer_norm});
  }
  Matrix feed_forward(const FeedForward& ffn, const Matrix& h) const { return ffn(h, probe); }
  void output(const Matrix& y) const { probe.record("output", y); }

 private:
  bool skipped(Sublayer which) const {
    switch (which) {
      case Sublayer::SelfAttention: return edits.self_attn.skip;
      case Sublayer::CrossAttention: return edits.cross_attn.skip;
      case Sublayer::FeedForward: return edits.skip_ffn;
    }
    return false;
  }
};

}  // namespace attnscope
