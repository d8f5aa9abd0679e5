#include "families/bert/bert.h"

namespace attnscope::bert {

// The one place BERT's attention site is named: self-attention over the input, every layer,
// computed once per input.
static SiteTable site_table(const Config& c) {
  return {{"self", "Self-attention", Side::Source, Side::Source, c.n_layers, c.n_heads, false, "", "self_attn",
           "encoderSelfAttention", false}};
}

Bert::Bert(const ModelConfig& model_config, const Config& config, Weights weights)
    : model_config_(model_config), config_(config), weights_(std::move(weights)), sites_(site_table(config)) {}

const MultiHeadAttention* Bert::attention_layer(int site, int layer) const {
  if (site != kSelf || layer < 0 || layer >= static_cast<int>(weights_.layers.size())) return nullptr;
  return &weights_.layers[static_cast<std::size_t>(layer)].self_attn;
}

std::vector<int> Bert::segments_of(const std::vector<int>& ids) const {
  std::vector<int> out;
  out.reserve(ids.size());
  int segment = 0;
  for (int id : ids) {
    out.push_back(std::min(segment, config_.n_segments - 1));
    if (id == model_config_.special.eos) segment = 1;
  }
  return out;
}

Matrix Bert::mlm_logits(const Matrix& hidden) const {
  const Weights& w = weights_;
  Matrix h = w.mlm_transform(hidden);
  ops::activate(h, kActivation);
  return ops::linear(w.mlm_norm(h), w.token_embed, w.mlm_bias);
}

// BERT has one attention site and no decoder: the interventions that name a decoder's sub-layers
// or a source encoding for it have nothing to act on.
const InterventionSupport& Bert::intervention_support() const {
  static const std::string no_decoder = "a BERT model has no decoder: skip its self-attention (encoderSelfAttention) instead";
  static const std::string no_copy = "a BERT model has no decoder to copy the source encoding into";
  static const InterventionSupport support{{
      {"decoderSelfAttention", no_decoder},
      {"crossAttention", no_decoder},
      {"copySourceEncoding", no_copy},
      {"lastSourceState", no_copy},
  }};
  return support;
}

const Bert& of(const Model& model) {
  const auto* b = dynamic_cast<const Bert*>(model.family.get());
  if (!b) throw InputError("this needs a BERT (encoder-only) model, not architecture '" + model.config.architecture + "'");
  return *b;
}

}  // namespace attnscope::bert
