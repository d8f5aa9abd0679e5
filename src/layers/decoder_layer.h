#pragma once
#include "layers/attention.h"
#include "layers/edits.h"
#include "layers/feed_forward.h"
#include "layers/kv_cache.h"
#include "layers/probe.h"

namespace attnscope {

// What one decoder layer remembers between steps: its own past keys/values, and the
// projections of the encoder output, computed once per source sentence.
struct DecoderLayerState {
  KVCache self;
  Matrix cross_k, cross_v;  // [source length, d]
  RowVector source_mean;    // the mean of the encoder output: what "copy the source encoding" adds
};

// One decoder layer, run one target position at a time: masked self-attention (the mask is
// implicit: the cache holds only earlier positions), cross-attention to the source, the FFN.
struct DecoderLayer {
  MultiHeadAttention self_attn;
  LayerNorm self_attn_norm;
  MultiHeadAttention cross_attn;
  LayerNorm cross_attn_norm;
  FeedForward ffn;
  LayerNorm ffn_norm;
  NormPosition norm_position = NormPosition::Post;

  DecoderLayerState start(const Matrix& memory) const;
  // y: [1, d], the current position. Appends to state.self.
  Matrix step(const Matrix& y, DecoderLayerState& state, const Probe& probe, const LayerEdits& edits = {}) const;
};

}  // namespace attnscope
