// The decoder-only family's tensors (models/FORMAT.md, "The decoder-only family"), each checked
// against the config.
#include "families/decoder_only/decoder_only.h"
#include "model/embedding.h"

namespace attnscope::decoder_only {

std::unique_ptr<ModelFamily> load(const Model& m, WeightReader& w, const Model::LoadOptions& options) {
  const Config c = Config::from_json(m.config.family_json);
  if (m.src_vocab.tokens() != m.tgt_vocab.tokens())
    throw ModelFileError("a decoder-only model has one vocabulary: src_vocab and tgt_vocab must be identical");
  const int d = c.d_model, V = m.src_vocab.size(), P = m.config.max_positions;
  Weights t;
  t.tied_output = c.tied_output;
  t.token_embed = w.embedding_table("embed.token.weight", V, d, c.tied_output);  // packed when it is the output
  if (c.learned_positions) t.positions = w.matrix("embed.position.weight", P, d);
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    Layer layer;
    layer.self_attn = w.attention(p + "self_attn", d, c.n_heads);
    layer.self_attn_norm = w.layer_norm(p + "self_attn_norm", d, c.layer_norm_eps);
    if (c.d_ff > 0) {
      layer.ffn = w.ffn(p + "ffn", d, c.d_ff, c.activation);
      layer.ffn_norm = w.layer_norm(p + "ffn_norm", d, c.layer_norm_eps);
    }
    layer.norm_position = c.norm;
    t.layers.push_back(std::move(layer));
  }
  if (c.norm == NormPosition::Pre) t.final_norm = w.layer_norm("final_norm", d, c.layer_norm_eps);
  if (!c.tied_output) t.output_weight_ = w.weight_matrix("output.weight", V, d);
  t.output_bias = w.vector("output.bias", V);

  // Sinusoidal positions are computed, not read: only now, with every tensor found in the shape
  // the config gives, and only in proportion to the file.
  if (!c.learned_positions) {
    w.check_derived("sinusoidal positions (" + std::to_string(P) + " x " + std::to_string(d) + ")",
                    sizeof(float) * static_cast<std::size_t>(P) * static_cast<std::size_t>(d));
    t.positions = sinusoidal_positions(P, d);
  }

  // Every step after the first multiplies one row per hypothesis by these (see the transformer's
  // loader: the kernel reads them faster rearranged, or in int8 if asked).
  for (Layer& layer : t.layers) {
    for (Linear* l : {&layer.self_attn.q_proj, &layer.self_attn.k_proj, &layer.self_attn.v_proj,
                      &layer.self_attn.out_proj})
      l->prepare_for_steps(options.int8);
    if (!layer.ffn.empty())
      for (Linear* l : {&layer.ffn.fc1, &layer.ffn.fc2}) l->prepare_for_steps(options.int8);
  }
  prepare_step_output(t.output_weight_, t.token_embed, c.tied_output, options.int8);
  return std::make_unique<DecoderOnly>(m.config, c, std::move(t));
}

}  // namespace attnscope::decoder_only
