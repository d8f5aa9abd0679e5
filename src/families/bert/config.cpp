// The BERT family's config fields (models/FORMAT.md, "The BERT family").
#include "core/error.h"
#include "families/bert/bert.h"
#include "model/config_fields.h"

namespace attnscope::bert {

using namespace config_fields;

Config Config::from_json(const std::string& text) {
  const json j = parse_json(text, "config metadata", JsonSource::ModelFile);
  Config c;
  const Width width = width_and_heads(j);
  c.d_model = width.d_model;
  c.n_heads = width.n_heads;
  c.d_ff = int_field(j, "d_ff", 1, 4 * kMaxWidth);
  c.n_layers = int_field(j, "n_layers", 1, kMaxLayers);
  c.n_segments = int_field(j, "n_segments", 1, 16);
  c.layer_norm_eps = static_cast<float>(float_field(j, "layer_norm_eps"));
  if (!(c.layer_norm_eps > 0.0f)) throw ModelFileError("config field 'layer_norm_eps' must be > 0");
  c.pooler = bool_field(j, "pooler");
  c.mask = int_field(field(j, "special_tokens"), "mask", 0, 1 << 24);
  if (!bool_field(j, "shared_embeddings"))
    throw ModelFileError("config field 'shared_embeddings' must be true for a BERT (one vocabulary)");
  return c;
}

}  // namespace attnscope::bert
