#include "analysis/head_importance.h"

namespace attnscope {

static double mean_log_likelihood(const Model& model, const std::vector<DevPair>& dev, const Interventions& iv,
                                  int* tokens) {
  double total = 0.0;
  int count = 0;
  for (const DevPair& pair : dev) {
    total += score_target(model, pair.source, pair.reference, iv).log_prob;
    count += static_cast<int>(pair.reference.size()) + 1;
  }
  if (tokens) *tokens = count;
  return count ? total / count : 0.0;
}

HeadSweep head_importance_sweep(const Model& model, const std::vector<DevPair>& dev,
                                const std::function<void(int, int)>& progress) {
  if (dev.empty()) throw InputError("the head-importance sweep needs at least one sentence pair");
  const ModelConfig& c = model.config;
  HeadSweep sweep;
  sweep.base_log_likelihood = mean_log_likelihood(model, dev, {}, &sweep.tokens);

  std::vector<HeadMask> heads;
  for (AttentionSite site : {AttentionSite::Encoder, AttentionSite::DecoderSelf, AttentionSite::Cross}) {
    const int layers = site == AttentionSite::Encoder ? c.n_encoder_layers : c.n_decoder_layers;
    for (int layer = 0; layer < layers; ++layer)
      for (int head = 0; head < c.n_heads; ++head) heads.push_back({site, layer, head});
  }
  const int total = static_cast<int>(heads.size());
  if (progress) progress(0, total);
  for (int i = 0; i < total; ++i) {
    Interventions iv;
    iv.masked_heads.push_back(heads[i]);
    const double masked = mean_log_likelihood(model, dev, iv, nullptr);
    sweep.heads.push_back({heads[i].site, heads[i].layer, heads[i].head, masked - sweep.base_log_likelihood});
    if (progress) progress(i + 1, total);
  }
  return sweep;
}

}  // namespace attnscope
