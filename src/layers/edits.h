#pragma once
// What one layer is told to do differently from the trained model (built from a model-wide
// Interventions by model/interventions.h). Default-constructed: nothing changes.
#include <vector>

#include "core/tensor.h"

namespace attnscope {

struct HeadEdit {
  bool masked = false;    // the head's output is zeroed (it still attends, for the page to show)
  bool replaced = false;  // its attention weights are replaced by `weights_for(keys)`
  enum class Pattern { Uniform, Beginning, End, Custom } pattern = Pattern::Uniform;
  // Custom: a matrix, one row per query position; queries past the last row use the last row
  // (so one row is the same weights for every query).
  std::vector<std::vector<float>> custom;

  // The replacement row for the query at position `query` over `keys` positions; throws
  // InputError if a custom row has the wrong length. Rules in src/model/interventions.h.
  RowVector weights_for(int query, int keys) const;
};

struct AttentionEdits {
  bool skip = false;            // the sub-layer contributes nothing: x + 0 (then LN if post-norm)
  std::vector<HeadEdit> heads;  // empty, or one per head
  bool any_head() const { return !heads.empty(); }
};

struct LayerEdits {
  AttentionEdits self_attn, cross_attn;
  bool skip_ffn = false;
  bool skip_layer_norm = false;       // every LayerNorm of the layer becomes the identity
  bool copy_source_encoding = false;  // cross-attention's output becomes the mean source encoding
};

}  // namespace attnscope
