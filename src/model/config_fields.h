#pragma once
// Reading the fields of a model file's config object, one at a time or a stack of attention
// layers at once, with the bounds and the error messages (ModelFileError naming the field)
// every family's config uses.
#include <string>
#include <vector>

#include "core/architecture.h"
#include "core/json.h"

namespace attnscope::config_fields {

using json = nlohmann::json;

const json& field(const json& j, const char* name);  // throws when missing
int int_field(const json& j, const char* name, int lo, int hi);
double float_field(const json& j, const char* name);
bool bool_field(const json& j, const char* name);
std::string choice_field(const json& j, const char* name, const char* a, const char* b);
std::string one_of(const json& j, const char* name, const std::vector<std::string>& choices);
// d_model and n_heads, whose heads must divide the width.
struct Width {
  int d_model, n_heads;
};
Width width_and_heads(const json& j);

// A stack of attention layers as the transformer, BERT and decoder-only families' configs state
// it: d_model, n_heads, d_ff, the layer counts, the activation and the norm position, read in
// that order (a file with two faults is refused for the first) by stack_fields. What differs
// between the families is the spec.
struct StackSpec {
  std::vector<const char*> layer_counts;  // {"n_layers"}, or {"n_encoder_layers", "n_decoder_layers"}
  int min_d_ff = 1;                       // 0: a layer may have no FFN
  // The choices, in the order an error lists them; none: the family has no such field.
  std::vector<Activation> activations;
  std::vector<NormPosition> norms;        // none, or both
};
struct Stack {
  int d_model = 0, n_heads = 0, d_ff = 0;
  std::vector<int> layers;  // one a name of layer_counts
  Activation activation = Activation::GELU;  // where the spec has none: not read
  NormPosition norm = NormPosition::Post;
};
Stack stack_fields(const json& j, const StackSpec& spec);
// 'layer_norm_eps' as the file writes it; > 0 also as the binary32 a LayerNorm holds.
double layer_norm_eps_field(const json& j);

// Bounds that no model meant for a browser exceeds; they turn absurd values from a corrupted
// file into a clear error instead of a multi-gigabyte allocation.
constexpr int kMaxWidth = 16384;
constexpr int kMaxLayers = 64;
constexpr int kMaxPositions = 8192;

}  // namespace attnscope::config_fields
