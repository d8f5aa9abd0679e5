#include "analysis/attribution_session.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/encoding_analysis.h"
#include "analysis/rank_correlation.h"
#include "core/error.h"

namespace attnscope {

namespace {

// The token the session chose after `e` at `step`: its child in the beam tree (greedy and forced
// steps have one; a beam's first surviving one), else the model's best.
int chosen_token(const DecodeSession& session, int step, const Expansion& e) {
  const auto& tree = session.tree();
  for (const BeamNode& n : tree)
    if (n.parent == e.node && n.step == step && n.status != NodeStatus::Pruned) return n.token;
  if (e.top.empty()) throw Error("step " + std::to_string(step) + " has no prediction to explain");
  return e.top[0].token;
}

// The site table's row whose attention is compared: a per-step site from the target to `keys`,
// or (`per_step` false) the encoder's self-attention. −1 when the table has none.
int agreement_site(const SiteTable& sites, bool per_step, Side keys) {
  if (!per_step) return source_self_attention_site(sites);
  for (std::size_t i = 0; i < sites.size(); ++i)
    if (sites[i].per_step && sites[i].queries == Side::Target && sites[i].keys == keys) return static_cast<int>(i);
  return -1;
}

// τ-b of every head's row `query` of `attention` ([layer][head][K], or [layer][head][Q][K] with
// `query` −1 for the last row) against |scores|.
AttentionAgreement agreement(const SiteTable& sites, int site, const Tensor& attention, int query,
                             const std::vector<float>& scores) {
  AttentionAgreement out;
  if (site < 0 || attention.empty()) return out;
  const bool has_rows = attention.shape.size() == 4;
  const int keys = attention.shape.back();
  if (keys != static_cast<int>(scores.size()))
    throw Error("attention site '" + sites[site].name + "' has " + std::to_string(keys) + " keys but " +
                std::to_string(scores.size()) + " tokens were scored");
  out.site = sites[site].name;
  out.layers = attention.shape[0];
  out.heads = attention.shape[1];
  const int row = !has_rows ? 0 : query < 0 ? attention.shape[2] - 1 : query;
  std::vector<float> magnitude(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) magnitude[i] = std::abs(scores[i]);
  for (int l = 0; l < out.layers; ++l)
    for (int h = 0; h < out.heads; ++h) {
      const std::size_t start = has_rows ? attention.offset({l, h, row, 0}) : attention.offset({l, h, 0});
      const std::vector<float> weights(attention.data.begin() + static_cast<std::ptrdiff_t>(start),
                                       attention.data.begin() + static_cast<std::ptrdiff_t>(start) + keys);
      out.tau.push_back(kendall_tau_b(weights, magnitude));
    }
  return out;
}

AttentionAgreement mean_agreement(const std::vector<TokenAttribution>& steps) {
  AttentionAgreement mean;
  for (const TokenAttribution& s : steps) {
    if (s.agreement.tau.empty()) continue;
    if (mean.tau.empty()) mean = s.agreement, mean.tau.assign(s.agreement.tau.size(), 0.0);
  }
  for (std::size_t k = 0; k < mean.tau.size(); ++k) {
    double sum = 0;
    int defined = 0;
    for (const TokenAttribution& s : steps)
      if (k < s.agreement.tau.size() && !std::isnan(s.agreement.tau[k])) sum += s.agreement.tau[k], ++defined;
    mean.tau[k] = defined ? sum / defined : std::numeric_limits<double>::quiet_NaN();
  }
  return mean;
}

// What the model read for the prediction after `e`: translation, the source, then <bos> and the
// prefix; decoder-only, the prompt as it reads it (<bos> first where it reads one) and the prefix.
train::Tokens prediction_tokens(const DecodeSession& session, const Expansion& e) {
  const Model& model = session.model();
  train::Tokens tokens;
  if (model.family->input() == ModelFamily::Input::Prompt) {
    tokens.target = session.source().ids;
  } else {
    tokens.source = session.source().ids;
    tokens.target.push_back(model.config.special.bos);
  }
  tokens.target.insert(tokens.target.end(), e.prefix.begin(), e.prefix.end());
  return tokens;
}

// Whether the target the model read starts with the <bos> every input has (attribution.h).
bool leading_bos(const DecodeSession& session) {
  return session.model().family->input() != ModelFamily::Input::Prompt || session.source().bos;
}

std::size_t token_count(const train::Tokens& tokens) { return tokens.source.size() + tokens.target.size(); }

}  // namespace

AttributionCost session_attribution_cost(const DecodeSession& session, const train::Differentiable& pass, int step,
                                         int hypothesis, const AttributionOptions& options) {
  options.validate();
  const train::Tokens tokens = prediction_tokens(session, session.expansion(step, hypothesis));
  return attribution_cost(pass.parameter_count(), token_count(tokens), options);
}

AttributionCost sentence_attribution_cost(const DecodeSession& session, const train::Differentiable& pass,
                                          const AttributionOptions& options, int last, int hypothesis) {
  options.validate();
  AttributionCost total;
  if (last < 0) last = session.steps_taken() - 1;
  if (last < 0) return total;
  for (const Expansion* e : session.lineage(last, hypothesis))
    total += attribution_cost(pass.parameter_count(), token_count(prediction_tokens(session, *e)), options);
  return total;
}

TokenAttribution session_attribution(const DecodeSession& session, train::Differentiable& pass, int step,
                                     int hypothesis, const AttributionOptions& options, int token) {
  options.validate();
  const Expansion& e = session.expansion(step, hypothesis);
  const Model& model = session.model();
  const bool prompt = model.family->input() == ModelFamily::Input::Prompt;
  TokenAttribution out;
  out.step = step;
  out.token = token >= 0 ? token : chosen_token(session, step, e);
  out.contrast = options.contrast;
  out.method = options.method;
  out.tokens = prediction_tokens(session, e);
  const AttributionTarget target{out.tokens, static_cast<int>(out.tokens.target.size()) - 1, out.token,
                                 leading_bos(session)};
  out.scores = attribute(pass, target, options, model.config.special.pad);
  const Side keys = prompt ? Side::Target : Side::Source;
  const int site = agreement_site(model.sites(), true, keys);
  out.agreement = agreement(model.sites(), site, site < 0 ? Tensor() : site_attention(e.trace.attention, site), -1,
                            prompt ? out.scores.target : out.scores.source);
  return out;
}

SentenceAttribution sentence_attribution(const DecodeSession& session, train::Differentiable& pass,
                                         const AttributionOptions& options, int last, int hypothesis) {
  SentenceAttribution out;
  if (last < 0) last = session.steps_taken() - 1;
  if (last < 0) return out;
  const std::vector<const Expansion*> chain = session.lineage(last, hypothesis);
  // Every step within budget before the first runs (a refusal costs nothing): the longest input
  // allows the fewest steps, so its cap is the one to name.
  std::size_t longest = 0;
  for (const Expansion* e : chain) longest = std::max(longest, token_count(prediction_tokens(session, *e)));
  check_attribution_budget(pass.parameter_count(), longest, options);
  for (int step = 0; step <= last; ++step) {
    const auto& expansions = session.record(step).expansions;
    const int hypothesis = static_cast<int>(chain[step] - expansions.data());
    // The token that hypothesis went on with: the next step's prefix has it; the last step's is the chosen one.
    const int token = step < last ? chain[step + 1]->prefix[static_cast<std::size_t>(step)] : -1;
    out.steps.push_back(session_attribution(session, pass, step, hypothesis, options, token));
  }
  out.mean = mean_agreement(out.steps);
  return out;
}

TokenAttribution encoding_attribution(const Model& model, const Encoding& encoding, train::Differentiable& pass,
                                      int position, int token, const AttributionOptions& options) {
  options.validate();
  const int length = static_cast<int>(encoding.input.ids.size());
  if (position < 0 || position >= length)
    throw IndexError("position " + std::to_string(position) + " is outside the input's " + std::to_string(length) +
                     " tokens");
  TokenAttribution out;
  out.step = position;
  out.token = token;
  out.contrast = options.contrast;
  out.method = options.method;
  out.tokens.source = encoding.input.ids;
  out.scores = attribute(pass, AttributionTarget{out.tokens, position, token}, options, model.config.special.pad);
  const int site = agreement_site(model.sites(), false, Side::Source);
  out.agreement = agreement(model.sites(), site, site_attention(encoding.trace.attention, site), position, out.scores.source);
  return out;
}

std::vector<TokenAttribution> fill_mask_attribution(const Model& model, const std::string& text,
                                                    train::Differentiable& pass, const AttributionOptions& options) {
  options.validate();
  const FillMask f = fill_mask(model, text, 1, Capture{true, false, false});
  std::vector<TokenAttribution> out;
  for (const MaskPrediction& m : f.masks)
    out.push_back(encoding_attribution(model, f.encoding, pass, m.position, m.top[0].id, options));
  return out;
}

AttributionOptions attribution_options(const std::string& method, int steps, const std::string& baseline,
                                       const std::string& contrast, const Vocabulary& vocab) {
  AttributionOptions o;
  o.method = parse_attribution_method(method);
  o.steps = steps;
  o.baseline = parse_attribution_baseline(baseline);
  if (!contrast.empty()) o.contrast = contrast_token_id(vocab, contrast);
  o.validate();
  return o;
}

int contrast_token_id(const Vocabulary& vocab, const std::string& token) {
  if (!vocab.contains(token)) throw InputError("contrast token '" + token + "' is not in the model's vocabulary");
  return vocab.id(token, -1);
}

}  // namespace attnscope
