#include "families/transformer/transformer.h"

namespace attnscope::transformer {

// The one place the transformer's attention sites are named.
static SiteTable site_table(const Config& c) {
  return {
      {"encoder", "Encoder self-attention", Side::Source, Side::Source, c.n_encoder_layers, c.n_heads, false, "",
       "encoder_self_attn", "encoderSelfAttention", false},
      {"self", "Decoder self-attention", Side::Target, Side::Target, c.n_decoder_layers, c.n_heads, true, "self_",
       "self_attn", "decoderSelfAttention", false},
      {"cross", "Cross-attention", Side::Target, Side::Source, c.n_decoder_layers, c.n_heads, true, "cross_",
       "cross_attn", "crossAttention", true},
  };
}

Transformer::Transformer(const ModelConfig& shared, const Config& config, Weights weights)
    : shared_(shared), config_(config), weights_(std::move(weights)), sites_(site_table(config)) {}

const MultiHeadAttention* Transformer::attention_layer(int site, int layer) const {
  const bool encoder = site == kEncoderSelf;
  const std::size_t layers = encoder ? weights_.encoder_layers.size() : weights_.decoder_layers.size();
  if (site < 0 || site >= static_cast<int>(sites_.size()) || layer < 0 || layer >= static_cast<int>(layers))
    return nullptr;
  if (encoder) return &weights_.encoder_layers[layer].self_attn;
  const DecoderLayer& d = weights_.decoder_layers[layer];
  return site == kDecoderSelf ? &d.self_attn : &d.cross_attn;
}

LayerEdits Transformer::encoder_edits(int layer, const Interventions& iv) const {
  LayerEdits e;
  if (iv.empty()) return e;
  e.self_attn = iv.attention_edits(sites_[kEncoderSelf].name, layer, iv.skip_encoder_self_attention, config_.n_heads);
  e.skip_ffn = iv.skip_ffn;
  e.skip_layer_norm = iv.skip_layer_norm;
  return e;
}

LayerEdits Transformer::decoder_edits(int layer, const Interventions& iv) const {
  LayerEdits e;
  if (iv.empty()) return e;
  e.self_attn = iv.attention_edits(sites_[kDecoderSelf].name, layer, iv.skip_decoder_self_attention, config_.n_heads);
  e.cross_attn = iv.attention_edits(sites_[kCross].name, layer, iv.skip_cross_attention, config_.n_heads);
  e.skip_ffn = iv.skip_ffn;
  e.skip_layer_norm = iv.skip_layer_norm;
  e.copy_source_encoding = iv.copy_source_encoding;
  return e;
}

const InterventionSupport& Transformer::intervention_support() const {
  static const InterventionSupport support{{
      {"lastSourceState", "'last state only' needs one final encoder state, which a transformer does not have (its "
                          "encoder returns one vector per source token); use copySourceEncoding for the mean instead"},
  }};
  return support;
}

const Transformer& of(const Model& model) {
  const auto* t = dynamic_cast<const Transformer*>(model.family.get());
  if (!t) throw Error("this needs a transformer model, not architecture '" + model.config.architecture + "'");
  return *t;
}

}  // namespace attnscope::transformer
