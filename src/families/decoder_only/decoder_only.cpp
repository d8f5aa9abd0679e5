#include "families/decoder_only/decoder_only.h"

namespace attnscope::decoder_only {

// The one place the family's attention site is named: causal self-attention over the context
// (the prompt, <bos> first where it reads one, and what was generated), every layer, computed at
// each step.
static SiteTable site_table(const Config& c) {
  return {{"self", "Self-attention", Side::Target, Side::Target, c.n_layers, c.n_heads, true, "self_", "self_attn",
           "decoderSelfAttention", false}};
}

DecoderOnly::DecoderOnly(const ModelConfig& model_config, const Config& config, Weights weights)
    : model_config_(model_config), config_(config), weights_(std::move(weights)), sites_(site_table(config)) {}

const MultiHeadAttention* DecoderOnly::attention_layer(int site, int layer) const {
  if (site != kSelf || layer < 0 || layer >= static_cast<int>(weights_.layers.size())) return nullptr;
  return &weights_.layers[static_cast<std::size_t>(layer)].self_attn;
}

LayerEdits DecoderOnly::edits(int layer, const Interventions& iv) const {
  LayerEdits e;
  if (iv.empty()) return e;
  e.self_attn = iv.attention_edits(sites_[kSelf].name, layer, iv.skip_decoder_self_attention, config_.n_heads);
  e.skip_ffn = iv.skip_ffn;
  e.skip_layer_norm = iv.skip_layer_norm;
  return e;
}

// No encoder and no source: what names either has nothing to act on.
const InterventionSupport& DecoderOnly::intervention_support() const {
  static const std::string no_encoder =
      "a decoder-only model has no encoder and no cross-attention: skip its self-attention (decoderSelfAttention) instead";
  static const std::string no_source = "a decoder-only model has no source encoding: its prompt is part of its context";
  static const InterventionSupport support{{
      {"encoderSelfAttention", no_encoder},
      {"crossAttention", no_encoder},
      {"copySourceEncoding", no_source},
      {"lastSourceState", no_source},
  }};
  return support;
}

}  // namespace attnscope::decoder_only
