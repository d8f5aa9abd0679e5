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

void check_interventions(const Interventions& iv) {
  if (!iv.masked_heads.empty())
    throw InputError("an RNN's attention has a single head: masking it is not a head mask; use copySourceEncoding "
                     "(no attention: the mean encoder state) or lastSourceState (the encoder's final state) instead");
  if (iv.skip_encoder_self_attention || iv.skip_decoder_self_attention)
    throw InputError("an RNN has no self-attention to skip: its encoder and decoder are recurrent");
  if (iv.skip_ffn) throw InputError("an RNN has no feed-forward sub-layer to skip");
  if (iv.skip_layer_norm) throw InputError("an RNN has no LayerNorm to skip");
}

}  // namespace attnscope::rnn
