// BERT's tensors (models/FORMAT.md, "The BERT family"), each checked against the config.
#include "families/bert/bert.h"

namespace attnscope::bert {

// LoadOptions::int8 is not applied: BERT has no decoder steps, its products are all many-row.
std::unique_ptr<ModelFamily> load(const Model& m, WeightReader& w, const Model::LoadOptions&) {
  const Config c = Config::from_json(m.config.family_json);
  const int d = c.d_model, V = m.src_vocab.size();
  if (c.mask >= V)
    throw ModelFileError("special token 'mask' id " + std::to_string(c.mask) + " is outside the vocabulary of " +
                         std::to_string(V));
  Weights t;
  t.token_embed = w.embedding_table("embed.token.weight", V, d, false);  // the MLM head: no decoder step
  t.positions = w.matrix("embed.position.weight", m.config.max_positions, d);
  t.segment_embed = w.matrix("embed.segment.weight", c.n_segments, d);
  t.embed_norm = w.layer_norm("embed.norm", d, c.layer_norm_eps);
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    t.layers.push_back(EncoderLayer{w.attention(p + "self_attn", d, c.n_heads),
                                    w.layer_norm(p + "self_attn_norm", d, c.layer_norm_eps),
                                    w.ffn(p + "ffn", d, c.d_ff, kActivation),
                                    w.layer_norm(p + "ffn_norm", d, c.layer_norm_eps), NormPosition::Post});
  }
  if (c.pooler) t.pooler = w.linear("pooler", d, d);
  t.mlm_transform = w.linear("mlm.transform", d, d);
  t.mlm_norm = w.layer_norm("mlm.norm", d, c.layer_norm_eps);
  t.mlm_bias = w.vector("mlm.bias", V);
  return std::make_unique<Bert>(m.config, c, std::move(t));
}

}  // namespace attnscope::bert
