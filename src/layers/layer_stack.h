#pragma once
// A stack of residual layers, forward and backward, shared by every transformer-style training
// pass: the transformer's encoder (self-attention, FFN) and decoder (causal self-attention,
// cross-attention, FFN), the decoder-only stack (the decoder without cross-attention, its FFN
// optional) and BERT's encoder. Each sub-layer is post-norm LN(x + drop(f(x))) or pre-norm
// x + drop(f(LN(x))), as layers/basic.h `residual` runs it for inference.
#include <vector>

#include "layers/blocks.h"

namespace attnscope::train {

// What every layer of a stack computes with (its family's config, in the blocks' words).
struct LayerSettings {
  NormPosition norm = NormPosition::Post;
  float eps = 1e-5f;
  int n_heads = 1;
  Activation activation = Activation::ReLU;
};

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
};

// The layers' parameters: EncoderLayerParams (no cross-attention; no FFN where its fc1 is empty,
// an attention-only decoder-only layer) or DecoderLayerParams.
template <class Layer>
Matrix layers_forward(const std::vector<Layer>& layers, const LayerSettings& settings, const StackRows& rows,
                      Matrix x, float dropout, Random* random, std::vector<LayerCache>& caches);

// From the gradient at the last layer's output back to the first one's input. Adds the layers'
// gradients into `grads` (nullptr: none) and the cross-attention's into `d_memory` (a matrix
// shaped like rows.memory; nullptr without cross-attention).
template <class Layer>
Matrix layers_backward(const std::vector<Layer>& layers, std::vector<Layer>* grads, const LayerSettings& settings,
                       const StackRows& rows, const std::vector<LayerCache>& caches, Matrix dy, Matrix* d_memory);

// A whole stack: x = drop(inputs + positions), the layers, then `final_norm` where there is one
// (pre-norm). The transformer runs two (encoder, decoder), the decoder-only family one.
template <class Layer>
struct Stack {
  const std::vector<Layer>& layers;
  const NormParams* final_norm;  // nullptr: none
  const Matrix& positions;       // [max_positions, d], learned or sinusoidal
};
// Where a stack's backward adds its gradients; nullptr: not computed (all nullptr: input gradient only).
template <class Layer>
struct StackGrads {
  std::vector<Layer>* layers = nullptr;
  NormParams* final_norm = nullptr;
  Matrix* positions = nullptr;  // learned positions only
};
struct StackCache {
  Matrix input_drop;  // dropout mask on the embeddings
  std::vector<LayerCache> layers;
  NormCache final_norm;
};
template <class Layer>
Matrix stack_forward(const Stack<Layer>& stack, const LayerSettings& settings, const StackRows& rows,
                     const Matrix& inputs, float dropout, Random* random, StackCache& cache);
// The gradient at the stack's inputs (before positions were added).
template <class Layer>
Matrix stack_backward(const Stack<Layer>& stack, const StackGrads<Layer>& grads, const LayerSettings& settings,
                      const StackRows& rows, const StackCache& cache, Matrix dy, Matrix* d_memory);

// The positions of a stack's packed rows: row r of a sentence starting at `begin` is at r - begin.
// inputs + positions[position of each row]; positions: [max_positions, d].
Matrix add_positions(const Matrix& inputs, const Matrix& positions, const std::vector<Segment>& segments);
// positions_grad[position of each row] += dy's row.
void add_positions_backward(Matrix& positions_grad, const std::vector<Segment>& segments, const Matrix& dy);

// The rows of every sentence: lengths [3, 2] -> {0, 3}, {3, 2}.
std::vector<Segment> segments_of_lengths(const std::vector<int>& lengths);

}  // namespace attnscope::train
