#include "families/rnn/rnn.h"

namespace attnscope::rnn {

// The one place the RNN's attention site is named: the decoder's attention over the encoder
// states, one layer, one head, one row per step. A model without attention has no site.
static SiteTable site_table(const Config& c) {
  if (c.style == Style::None) return {};
  return {{"cross", "Attention", Side::Target, Side::Source, 1, 1, true, "", "cross_attn", "crossAttention", true}};
}

Rnn::Rnn(const ModelConfig& model_config, const Config& config, Weights weights)
    : model_config_(model_config), config_(config), weights_(std::move(weights)), sites_(site_table(config)) {}

const InterventionSupport& Rnn::intervention_support() const {
  static const std::string no_self = "an RNN has no self-attention to skip: its encoder and decoder are recurrent";
  static const InterventionSupport support{{
      {"maskHeads", "an RNN's attention has a single head: masking it is not a head mask; use copySourceEncoding "
                    "(no attention: the mean encoder state) or lastSourceState (the encoder's final state) instead"},
      {"encoderSelfAttention", no_self},
      {"decoderSelfAttention", no_self},
      {"ffn", "an RNN has no feed-forward sub-layer to skip"},
      {"layerNorm", "an RNN has no LayerNorm to skip"},
  }};
  return support;
}

}  // namespace attnscope::rnn
