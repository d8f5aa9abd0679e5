#include "model/config.h"

#include <cmath>

#include "core/error.h"
#include "model/config_fields.h"

namespace attnscope {

namespace config_fields {

const json& field(const json& j, const char* name) {
  if (!j.contains(name)) throw ModelFileError(std::string("config field '") + name + "' is missing");
  return j.at(name);
}

int int_field(const json& j, const char* name, int lo, int hi) {
  const json& v = field(j, name);
  if (!v.is_number_integer())
    throw ModelFileError(std::string("config field '") + name + "' must be an integer, got " + json_excerpt(v));
  const long long x = v.get<long long>();
  if (x < lo || x > hi)
    throw ModelFileError(std::string("config field '") + name + "' = " + std::to_string(x) +
                         " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return static_cast<int>(x);
}

double float_field(const json& j, const char* name) {
  const json& v = field(j, name);
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    throw ModelFileError(std::string("config field '") + name + "' must be a finite number, got " + json_excerpt(v));
  return v.get<double>();
}

bool bool_field(const json& j, const char* name) {
  const json& v = field(j, name);
  if (!v.is_boolean())
    throw ModelFileError(std::string("config field '") + name + "' must be true or false, got " + json_excerpt(v));
  return v.get<bool>();
}

std::string one_of(const json& j, const char* name, const std::vector<std::string>& choices) {
  const json& v = field(j, name);
  std::string list;
  for (const std::string& c : choices) {
    if (v.is_string() && v.get<std::string>() == c) return c;
    list += (list.empty() ? "\"" : ", \"") + c + "\"";
  }
  throw ModelFileError(std::string("config field '") + name + "' must be one of " + list + ", got " + json_excerpt(v));
}

std::string choice_field(const json& j, const char* name, const char* a, const char* b) {
  const json& v = field(j, name);
  if (!v.is_string() || (v != a && v != b))
    throw ModelFileError(std::string("config field '") + name + "' must be \"" + a + "\" or \"" + b +
                         "\", got " + json_excerpt(v));
  return v.get<std::string>();
}

Width width_and_heads(const json& j) {
  const Width w{int_field(j, "d_model", 1, kMaxWidth), int_field(j, "n_heads", 1, kMaxWidth)};
  if (w.d_model % w.n_heads != 0)
    throw ModelFileError("config d_model = " + std::to_string(w.d_model) + " is not divisible by n_heads = " +
                         std::to_string(w.n_heads));
  return w;
}

Stack stack_fields(const json& j, const StackSpec& spec) {
  Stack s;
  const Width width = width_and_heads(j);
  s.d_model = width.d_model;
  s.n_heads = width.n_heads;
  s.d_ff = int_field(j, "d_ff", spec.min_d_ff, 4 * kMaxWidth);
  for (const char* name : spec.layer_counts) s.layers.push_back(int_field(j, name, 1, kMaxLayers));
  if (!spec.activations.empty()) {
    std::vector<std::string> names;
    for (Activation a : spec.activations) names.push_back(activation_name(a));
    const std::string name = one_of(j, "activation", names);
    for (Activation a : spec.activations)
      if (name == activation_name(a)) s.activation = a;
  }
  if (!spec.norms.empty()) {
    const NormPosition first = spec.norms.at(0), second = spec.norms.at(1);
    s.norm = choice_field(j, "norm", norm_name(first), norm_name(second)) == norm_name(first) ? first : second;
  }
  return s;
}

double layer_norm_eps_field(const json& j) {
  const double eps = float_field(j, "layer_norm_eps");
  if (!(static_cast<float>(eps) > 0.0f)) throw ModelFileError("config field 'layer_norm_eps' must be > 0");
  return eps;
}

}  // namespace config_fields

namespace {

using namespace config_fields;

void parse_special_tokens(const json& j, SpecialTokens& out) {
  const json& special = field(j, "special_tokens");
  if (!special.is_object()) throw ModelFileError("config field 'special_tokens' must be an object");
  out.pad = int_field(special, "pad", 0, 1 << 24);
  out.unk = int_field(special, "unk", 0, 1 << 24);
  out.bos = int_field(special, "bos", 0, 1 << 24);
  out.eos = int_field(special, "eos", 0, 1 << 24);
}

// Optional: absent is an empty list.
std::vector<int> parse_suppress_tokens(const json& j) {
  std::vector<int> ids;
  if (!j.contains("suppress_tokens")) return ids;
  const json& v = j.at("suppress_tokens");
  if (!v.is_array()) throw ModelFileError("config field 'suppress_tokens' must be an array of token ids, got " + json_excerpt(v));
  for (const json& id : v) {
    if (!id.is_number_integer() || id.get<long long>() < 0 || id.get<long long>() > (1 << 24))
      throw ModelFileError("config field 'suppress_tokens' must hold token ids in [0, 2^24], got " + json_excerpt(id));
    ids.push_back(id.get<int>());
  }
  return ids;
}

}  // namespace

ModelConfig ModelConfig::from_json(const std::string& text) {
  const json j = parse_json(text, "config metadata", JsonSource::ModelFile);
  if (!j.is_object()) throw ModelFileError("config metadata is not a JSON object");

  ModelConfig c;
  if (j.contains("architecture")) {
    const json& a = j.at("architecture");
    if (!a.is_string() || a.get<std::string>().empty())
      throw ModelFileError("config field 'architecture' must be a non-empty string, got " + json_excerpt(a));
    c.architecture = a.get<std::string>();  // the loader checks that some family reads it
  }
  // The family reads its own fields from family_json; these every family has. The two booleans
  // may be absent (false) where a family has nothing to say with them (a decoder-only model's
  // one vocabulary and its prompt, continued rather than ended); a family that needs them says
  // so when it parses its own fields.
  c.family_json = j.dump();
  c.max_positions = int_field(j, "max_positions", 2, kMaxPositions);
  c.shared_embeddings = j.contains("shared_embeddings") && bool_field(j, "shared_embeddings");
  c.src_append_eos = j.contains("src_append_eos") && bool_field(j, "src_append_eos");
  // Only a family that reads a prompt has a say in it; absent, what files written before the
  // field meant: <bos> first.
  c.prepend_bos = !j.contains("prepend_bos") || bool_field(j, "prepend_bos");
  parse_special_tokens(j, c.special);
  c.suppress_tokens = parse_suppress_tokens(j);
  return c;
}

}  // namespace attnscope
