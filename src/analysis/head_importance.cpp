#include "analysis/head_importance.h"

#include <memory>
#include <string>

#include "analysis/bleu.h"
#include "decoding/session.h"

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

static double greedy_bleu(const Model& model, const std::vector<DevPair>& dev, const Interventions& iv) {
  // Sessions share ownership of their model; this one outlives the loop, so it is borrowed.
  const std::shared_ptr<const Model> borrowed(std::shared_ptr<const Model>(), &model);
  DecodeOptions options;
  options.capture = {false, false, false};
  options.interventions = iv;
  std::vector<std::string> hypotheses, references;
  for (const DevPair& pair : dev) {
    DecodeSession session(borrowed, pair.source, options);
    session.run();
    hypotheses.push_back(session.detokenize(session.nbest().at(0).tokens));
    references.push_back(pair.reference_text);
  }
  return corpus_bleu(hypotheses, references).score;
}

HeadSweep head_importance_sweep(const Model& model, const std::vector<DevPair>& dev, const HeadSweepOptions& options,
                                const std::function<void(int, int)>& progress) {
  if (dev.empty()) throw InputError("the head-importance sweep needs at least one sentence pair");
  HeadSweep sweep;
  sweep.base_log_likelihood = mean_log_likelihood(model, dev, {}, &sweep.tokens);
  sweep.has_bleu = options.bleu;
  if (options.bleu) sweep.base_bleu = greedy_bleu(model, dev, {});

  std::vector<HeadMask> heads;
  for (const AttentionSiteInfo& site : model.sites())
    for (int layer = 0; layer < site.layers; ++layer)
      for (int head = 0; head < site.heads; ++head) heads.push_back({site.name, layer, head});
  const int all = static_cast<int>(heads.size());
  const int first = options.first_head;
  const int total = options.head_count < 0 ? all - first : options.head_count;
  if (first < 0 || first > all || total < 0 || first + total > all)
    throw InputError("head range [" + std::to_string(first) + ", " + std::to_string(first + total) +
                     ") is outside this model's " + std::to_string(all) + " heads");
  if (progress) progress(0, total);
  for (int i = 0; i < total; ++i) {
    const HeadMask& mask = heads[first + i];
    Interventions iv;
    iv.masked_heads.push_back(mask);
    HeadImportance h{mask.site, mask.layer, mask.head, mean_log_likelihood(model, dev, iv, nullptr) - sweep.base_log_likelihood};
    if (options.bleu) h.delta_bleu = greedy_bleu(model, dev, iv) - sweep.base_bleu;
    sweep.heads.push_back(h);
    if (progress) progress(i + 1, total);
  }
  return sweep;
}

}  // namespace attnscope
