#pragma once
#include "layers/attention.h"
#include "layers/edits.h"
#include "layers/feed_forward.h"
#include "layers/probe.h"

namespace attnscope {

// One encoder layer: self-attention over the source, then the FFN, each a residual sub-layer.
struct EncoderLayer {
  MultiHeadAttention self_attn;
  LayerNorm self_attn_norm;
  FeedForward ffn;
  LayerNorm ffn_norm;
  NormPosition norm_position = NormPosition::Post;

  Matrix forward(const Matrix& x, const Probe& probe, const LayerEdits& edits = {}) const;
};

}  // namespace attnscope
