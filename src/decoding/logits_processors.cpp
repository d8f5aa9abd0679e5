#include "decoding/logits_processors.h"

#include <algorithm>
#include <cmath>

#include "decoding/processors/forced_eos.h"
#include "decoding/processors/forced_prefix.h"
#include "decoding/processors/min_length.h"
#include "decoding/processors/no_repeat_ngram.h"
#include "decoding/processors/repetition_penalty.h"
#include "decoding/processors/suppress_tokens.h"
#include "decoding/processors/temperature.h"
#include "decoding/processors/top_k.h"
#include "decoding/processors/top_p.h"

namespace attnscope {

using Stage = LogitsProcessor::Stage;

// The one place where options become rules. A new rule: a class in processors/ and a line here.
LogitsProcessorList make_logits_processors(const DecodeOptions& o, int eos, const std::vector<int>& suppress_tokens,
                                           int limit) {
  LogitsProcessorList list;
  if (!o.prefix.empty()) list.push(std::make_unique<ForcedPrefix>(o.prefix));
  if (o.repetition_penalty != 1.0) list.push(std::make_unique<RepetitionPenalty>(o.repetition_penalty));
  if (!suppress_tokens.empty()) list.push(std::make_unique<SuppressTokens>(suppress_tokens));
  if (o.min_length > 0) list.push(std::make_unique<MinLength>(o.min_length, eos));
  if (o.no_repeat_ngram_size > 0) list.push(std::make_unique<NoRepeatNGram>(o.no_repeat_ngram_size));
  if (o.forced_eos && limit > 0) list.push(std::make_unique<ForcedEos>(limit, eos));
  if (o.strategy == Strategy::Sample) {
    if (o.temperature != 1.0) list.push(std::make_unique<Temperature>(o.temperature));  // x / 1 == x
    if (o.top_k > 0) list.push(std::make_unique<TopK>(o.top_k));
    if (o.top_p < 1.0) list.push(std::make_unique<TopP>(o.top_p));
  }
  return list;
}

void LogitsProcessorList::push(std::unique_ptr<LogitsProcessor> rule) {
  reshapes_ |= rule->stage() == Stage::Reshape;
  rules_.push_back(std::move(rule));
}

int LogitsProcessorList::forced(const std::vector<int>& tokens) const {
  for (const auto& rule : rules_)
    if (rule->stage() == Stage::Force)
      if (const int t = rule->forced(tokens); t >= 0) return t;
  return -1;
}

void LogitsProcessorList::reshape(const std::vector<int>& tokens, float* logits, int vocab) const {
  for (const auto& rule : rules_)
    if (rule->stage() == Stage::Reshape) rule->reshape(tokens, logits, vocab);
}

std::vector<int> LogitsProcessorList::banned(const std::vector<int>& tokens, int vocab) const {
  std::vector<int> banned, proposed, merged;
  for (const auto& rule : rules_) {
    if (rule->stage() != Stage::Ban) continue;
    proposed.clear();
    rule->ban(tokens, vocab, proposed);
    if (proposed.empty()) continue;
    std::sort(proposed.begin(), proposed.end());
    merged.clear();
    std::set_union(banned.begin(), banned.end(), proposed.begin(), proposed.end(), std::back_inserter(merged));
    merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
    if (static_cast<int>(merged.size()) >= vocab) continue;  // nothing would be left to choose
    banned.swap(merged);
  }
  return banned;
}

SamplingCandidates LogitsProcessorList::sampling_candidates(const float* logits, int vocab,
                                                            const std::vector<int>& banned) const {
  std::vector<double> z(logits, logits + vocab);
  for (int b : banned) z[b] = -INFINITY;
  for (const auto& rule : rules_)
    if (rule->stage() == Stage::Warp) rule->warp(z);

  // Softmax over the whole vocabulary, in double (a banned token gets exp(-inf) = 0).
  SamplingCandidates c;
  c.p.resize(vocab);
  const double max = *std::max_element(z.begin(), z.end());
  double sum = 0.0;
  for (int i = 0; i < vocab; ++i) {
    c.p[i] = std::exp(z[i] - max);
    sum += c.p[i];
  }
  for (double& x : c.p) x /= sum;

  // Candidates by probability, descending; lower id first on ties.
  c.kept.reserve(vocab - banned.size());
  for (int i = 0, b = 0; i < vocab; ++i) {
    if (b < static_cast<int>(banned.size()) && banned[b] == i) {
      ++b;
      continue;
    }
    c.kept.push_back(i);
  }
  std::stable_sort(c.kept.begin(), c.kept.end(), [&](int a, int b) { return c.p[a] > c.p[b]; });

  for (const auto& rule : rules_)
    if (rule->stage() == Stage::Truncate) rule->truncate(c);
  return c;
}

}  // namespace attnscope
