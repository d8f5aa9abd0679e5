// The transformer's tensors (models/FORMAT.md), each checked against the config.
#include "families/transformer/transformer.h"
#include "model/embedding.h"

namespace attnscope::transformer {

std::unique_ptr<ModelFamily> load(const Model& m, WeightReader& w, const Model::LoadOptions& options) {
  const Config c = Config::from_json(m.config.family_json);
  const ModelConfig& shared = m.config;
  const int d = c.d_model;
  const float eps = static_cast<float>(c.layer_norm_eps);
  Weights t;
  t.shared_embeddings = shared.shared_embeddings;
  t.tied_output = c.tied_output;
  // A tied output projection is the target table itself: held packed, as a step reads it.
  t.src_embed = w.embedding_table("src_embed.weight", m.src_vocab.size(), d, c.tied_output && shared.shared_embeddings);
  if (!shared.shared_embeddings)
    t.tgt_embed_ = w.embedding_table("tgt_embed.weight", m.tgt_vocab.size(), d, c.tied_output);
  if (c.positions == Positions::Learned) {
    t.encoder_positions = w.matrix("encoder.pos_embed.weight", shared.max_positions, d);
    t.decoder_positions = w.matrix("decoder.pos_embed.weight", shared.max_positions, d);
  }

  for (int i = 0; i < c.n_encoder_layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i) + ".";
    t.encoder_layers.push_back(EncoderLayer{w.attention(p + "self_attn", d, c.n_heads),
                                            w.layer_norm(p + "self_attn_norm", d, eps),
                                            w.ffn(p + "ffn", d, c.d_ff, c.activation),
                                            w.layer_norm(p + "ffn_norm", d, eps), c.norm});
  }
  for (int i = 0; i < c.n_decoder_layers; ++i) {
    const std::string p = "decoder.layers." + std::to_string(i) + ".";
    t.decoder_layers.push_back(DecoderLayer{
        w.attention(p + "self_attn", d, c.n_heads), w.layer_norm(p + "self_attn_norm", d, eps),
        w.attention(p + "cross_attn", d, c.n_heads), w.layer_norm(p + "cross_attn_norm", d, eps),
        w.ffn(p + "ffn", d, c.d_ff, c.activation), w.layer_norm(p + "ffn_norm", d, eps), c.norm});
  }
  if (c.norm == NormPosition::Pre) {
    t.encoder_final_norm = w.layer_norm("encoder.final_norm", d, eps);
    t.decoder_final_norm = w.layer_norm("decoder.final_norm", d, eps);
  }
  if (!c.tied_output) t.output_weight_ = w.weight_matrix("output.weight", m.tgt_vocab.size(), d);
  t.output_bias = w.vector("output.bias", m.tgt_vocab.size());

  // Sinusoidal positions are computed, not read: only now, with every tensor found in the shape
  // the config gives, and only in proportion to the file (encoder and decoder hold a copy each).
  if (c.positions != Positions::Learned) {
    w.check_derived("sinusoidal positions (" + std::to_string(shared.max_positions) + " x " + std::to_string(d) + ")",
                    2 * sizeof(float) * static_cast<std::size_t>(shared.max_positions) * static_cast<std::size_t>(d));
    t.encoder_positions = t.decoder_positions = c.positions == Positions::Sinusoidal
                                                    ? sinusoidal_positions(shared.max_positions, d)
                                                    : sinusoidal_halves_positions(shared.max_positions, d);
  }

  // A decoder step multiplies one row (a beam: a few) by each of these, streaming megabytes of
  // weights for few FLOPs; the kernel reads them faster rearranged (ops/gemm_simd.h; same
  // results), or, if asked, in int8 (ops/gemm_int8.h; approximate). Each layer holds its weight
  // once, in that form (ops/weight_matrix.h). With the binary16 load option a file stored as F16
  // keeps them in binary16 (half the bytes; its conversion costs more per weight than binary32's
  // loads, so it is slower per token unless the step is bound by memory bandwidth). The encoder's
  // products, many rows at a time, read an F32 file's plain layout.
  for (DecoderLayer& layer : t.decoder_layers)
    for (Linear* l : {&layer.self_attn.q_proj, &layer.self_attn.k_proj, &layer.self_attn.v_proj,
                      &layer.self_attn.out_proj, &layer.cross_attn.q_proj, &layer.cross_attn.out_proj, &layer.ffn.fc1,
                      &layer.ffn.fc2})
      l->prepare_for_steps(options.int8);
  prepare_step_output(t.output_weight_, t.tgt_embed(), c.tied_output, options.int8);
  return std::make_unique<Transformer>(shared, c, std::move(t));
}

}  // namespace attnscope::transformer
