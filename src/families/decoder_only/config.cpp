// The decoder-only family's config fields (models/FORMAT.md, "The decoder-only family").
#include <set>

#include "core/error.h"
#include "families/decoder_only/decoder_only.h"
#include "model/config_fields.h"

namespace attnscope::decoder_only {

using namespace config_fields;

namespace {

// Every field a decoder-only config may hold. Anything else (cross-attention, rotary or ALiBi
// positions, a second stack) describes a computation this family does not run.
const std::set<std::string> kFields = {
    "architecture", "d_model", "n_heads", "d_ff", "n_layers", "activation", "norm", "positions",
    "max_positions", "embedding_scale", "tied_output", "layer_norm_eps", "special_tokens",
    "shared_embeddings", "src_append_eos", "suppress_tokens", "prepend_bos"};

}  // namespace

Config Config::from_json(const std::string& text) {
  const json j = parse_json(text, "config metadata", JsonSource::ModelFile);
  for (const auto& [name, value] : j.items())
    if (!kFields.count(name))
      throw ModelFileError("config field '" + name +
                           "' is not supported by the decoder-only family (causal self-attention with learned or "
                           "sinusoidal positions, no cross-attention)");
  Config c;
  const Stack stack = stack_fields(j, {{"n_layers"}, 0, {Activation::ReLU, Activation::GELU, Activation::GELUTanh},
                                       {NormPosition::Pre, NormPosition::Post}});
  c.d_model = stack.d_model;
  c.n_heads = stack.n_heads;
  c.d_ff = stack.d_ff;
  c.n_layers = stack.layers[0];
  c.activation = stack.activation;
  c.norm = stack.norm;
  c.learned_positions = choice_field(j, "positions", "learned", "sinusoidal") == "learned";
  c.embedding_scale = static_cast<float>(float_field(j, "embedding_scale"));
  c.tied_output = bool_field(j, "tied_output");
  c.layer_norm_eps = static_cast<float>(layer_norm_eps_field(j));
  if (j.contains("src_append_eos") && bool_field(j, "src_append_eos"))
    throw ModelFileError("config field 'src_append_eos' must be false for a decoder-only model (its prompt is "
                         "continued, not ended)");
  return c;
}

}  // namespace attnscope::decoder_only
