// The transformer's config fields (models/FORMAT.md): parsed from the file's config object, and
// written back as the reference exporter writes them.
#include "core/error.h"
#include "families/transformer/transformer.h"
#include "model/config_fields.h"
#include "model/model_file_writer.h"  // py_float

namespace attnscope::transformer {

using namespace config_fields;

Config Config::from_json(const std::string& text) {
  const json j = parse_json(text, "config metadata", JsonSource::ModelFile);
  Config c;
  const Stack stack = stack_fields(j, {{"n_encoder_layers", "n_decoder_layers"}, 1,
                                       {Activation::ReLU, Activation::GELU, Activation::Swish},
                                       {NormPosition::Post, NormPosition::Pre}});
  c.d_model = stack.d_model;
  c.n_heads = stack.n_heads;
  c.d_ff = stack.d_ff;
  c.n_encoder_layers = stack.layers[0];
  c.n_decoder_layers = stack.layers[1];
  c.activation = stack.activation;
  c.norm = stack.norm;
  const std::string positions = one_of(j, "positions", {"sinusoidal", "learned", "sinusoidal_halves"});
  c.positions = positions == "sinusoidal" ? Positions::Sinusoidal
                : positions == "learned"  ? Positions::Learned
                                          : Positions::SinusoidalHalves;
  if (c.positions == Positions::SinusoidalHalves && c.d_model % 2 != 0)
    throw ModelFileError("config positions \"sinusoidal_halves\" needs an even d_model, got " + std::to_string(c.d_model));
  c.embedding_scale = float_field(j, "embedding_scale");
  bool_field(j, "shared_embeddings");  // required here; ModelConfig holds it
  c.tied_output = bool_field(j, "tied_output");
  c.layer_norm_eps = layer_norm_eps_field(j);
  bool_field(j, "src_append_eos");  // required here; ModelConfig holds it
  return c;
}

namespace {

std::string py_bool(bool b) { return b ? "true" : "false"; }

}  // namespace

const char* positions_name(Positions p) {
  return p == Positions::Sinusoidal ? "sinusoidal" : p == Positions::Learned ? "learned" : "sinusoidal_halves";
}

std::string Config::to_json(const ModelConfig& shared) const {
  const auto& s = shared.special;
  std::string out = "{\"d_model\":" + std::to_string(d_model) + ",\"n_heads\":" + std::to_string(n_heads) +
                    ",\"d_ff\":" + std::to_string(d_ff) + ",\"n_encoder_layers\":" + std::to_string(n_encoder_layers) +
                    ",\"n_decoder_layers\":" + std::to_string(n_decoder_layers) + ",\"activation\":\"" +
                    activation_name(activation) + "\",\"norm\":\"" + norm_name(norm) + "\",\"positions\":\"" +
                    positions_name(positions) + "\",\"max_positions\":" +
                    std::to_string(shared.max_positions) + ",\"embedding_scale\":" + train::py_float(embedding_scale) +
                    ",\"shared_embeddings\":" + py_bool(shared.shared_embeddings) + ",\"tied_output\":" +
                    py_bool(tied_output) + ",\"layer_norm_eps\":" + train::py_float(layer_norm_eps) + ",\"src_append_eos\":" +
                    py_bool(shared.src_append_eos) + ",\"special_tokens\":{\"pad\":" + std::to_string(s.pad) +
                    ",\"unk\":" + std::to_string(s.unk) + ",\"bos\":" + std::to_string(s.bos) +
                    ",\"eos\":" + std::to_string(s.eos) + "}";
  if (!shared.suppress_tokens.empty()) {
    out += ",\"suppress_tokens\":[";
    for (std::size_t i = 0; i < shared.suppress_tokens.size(); ++i)
      out += (i ? "," : "") + std::to_string(shared.suppress_tokens[i]);
    out += "]";
  }
  return out + "}";
}

}  // namespace attnscope::transformer
