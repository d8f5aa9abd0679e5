#pragma once
#include <memory>
#include <vector>

#include "layers/attention.h"
#include "layers/edits.h"
#include "layers/feed_forward.h"
#include "layers/kv_cache.h"
#include "layers/probe.h"

namespace attnscope {

// What a decoder layer takes from the encoder output, computed once per source sentence and
// then only read: every hypothesis of a beam shares one (a child hypothesis copies a pointer).
struct CrossMemory {
  Matrix k, v;            // the cross-attention keys and values, [source length, d]
  RowVector source_mean;  // the mean of the encoder output: what "copy the source encoding" adds
};

// What one decoder layer remembers between steps for one hypothesis: its own past
// keys/values, and the (shared) projections of the encoder output.
struct DecoderLayerState {
  KVCache self;
  std::shared_ptr<const CrossMemory> cross;
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
  // One step of n hypotheses at once (a beam; n = 1 for one). y: [n, d], row i the current
  // position of hypothesis i, whose keys/values are appended to states[i]->self and whose
  // attention goes to probes[i]. Every projection is one product over all n rows, so a step
  // reads the weights once, not once per hypothesis; the matrix kernel gives each row the
  // same bits as a batch of one. Named vectors are recorded only when n = 1.
  Matrix step(const Matrix& y, const std::vector<DecoderLayerState*>& states, const std::vector<Probe>& probes,
              const LayerEdits& edits = {}) const;
};

}  // namespace attnscope
