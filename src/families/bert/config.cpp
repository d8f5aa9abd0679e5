// The BERT family's config fields (models/FORMAT.md, "The BERT family").
#include "core/error.h"
#include "families/bert/bert.h"
#include "model/config_fields.h"

namespace attnscope::bert {

using namespace config_fields;

Config Config::from_json(const std::string& text) {
  const json j = parse_json(text, "config metadata", JsonSource::ModelFile);
  Config c;
  const Stack stack = stack_fields(j, {{"n_layers"}, 1, {}, {}});  // GELU and post-LN are BERT's own
  c.d_model = stack.d_model;
  c.n_heads = stack.n_heads;
  c.d_ff = stack.d_ff;
  c.n_layers = stack.layers[0];
  c.n_segments = int_field(j, "n_segments", 1, 16);
  c.layer_norm_eps = static_cast<float>(layer_norm_eps_field(j));
  c.pooler = bool_field(j, "pooler");
  c.mask = int_field(field(j, "special_tokens"), "mask", 0, 1 << 24);
  if (!bool_field(j, "shared_embeddings"))
    throw ModelFileError("config field 'shared_embeddings' must be true for a BERT (one vocabulary)");
  return c;
}

}  // namespace attnscope::bert
