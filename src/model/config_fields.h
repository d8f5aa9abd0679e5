#pragma once
// Reading one field of a model file's config object, with the bounds and the error message
// (ModelFileError naming the field) every family's config uses.
#include "core/json.h"
#include <string>
#include <vector>

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

// Bounds that no model meant for a browser exceeds; they turn absurd values from a corrupted
// file into a clear error instead of a multi-gigabyte allocation.
constexpr int kMaxWidth = 16384;
constexpr int kMaxLayers = 64;
constexpr int kMaxPositions = 8192;

}  // namespace attnscope::config_fields
