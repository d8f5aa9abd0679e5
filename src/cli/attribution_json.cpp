#include "cli/attribution_json.h"

#include <vector>

#include "train/differentiable.h"

namespace attnscope::cli {

using json = nlohmann::json;

const char* kAttributionUsage =
    "attribution (translate, generate and fill-mask, with --json):\n"
    "  --attribution METHOD    add what drove each generated token: gradient-input | integrated-gradients | erasure,\n"
    "                          per input token, with Kendall's tau between each head's attention and |attribution|\n"
    "  --ig-steps N            integrated gradients: points of the midpoint rule (default 32; at most what\n"
    "                          the model and the input allow within the engine's budget, named when refused)\n"
    "  --baseline KIND         integrated gradients: zero | pad (default zero)\n"
    "  --contrast TOKEN        explain log p(token) - log p(TOKEN) instead (Yin & Neubig 2022)\n";

bool parse_attribution_flag(const std::string& flag, const std::function<std::string()>& value,
                            AttributionRequest& request) {
  AttributionOptions& o = request.options;
  if (flag == "--attribution") {
    request.on = true;
    o.method = parse_attribution_method(value());
  } else if (flag == "--ig-steps") {
    const std::string v = value();
    std::size_t used = 0;
    int steps = -1;
    try {
      steps = std::stoi(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != v.size() || v.empty()) throw Error("--ig-steps needs an integer, got '" + v + "'");
    o.steps = steps;
  } else if (flag == "--baseline") {
    o.baseline = parse_attribution_baseline(value());
  } else if (flag == "--contrast") {
    request.contrast = value();
  } else {
    return false;
  }
  o.validate();
  return true;
}

void prepare_attribution(AttributionRequest& request, const std::shared_ptr<const Model>& model, const Vocabulary& vocab) {
  if (!request.on) return;
  if (!request.contrast.empty()) request.options.contrast = contrast_token_id(vocab, request.contrast);
  request.pass = train::differentiable_for(model);
}

namespace {

json tokens_of(const Vocabulary& vocab, const std::vector<int>& ids) {
  json out = json::array();
  for (int id : ids) out.push_back(vocab.token(id));
  return out;
}

// τ per head as [layer][head] (null where undefined), with the site compared.
json agreement_to_json(const AttentionAgreement& a) {
  json values = json::array();
  for (int l = 0; l < a.layers; ++l) {
    json row = json::array();
    for (int h = 0; h < a.heads; ++h) row.push_back(a.tau[static_cast<std::size_t>(l * a.heads + h)]);  // NaN → null
    values.push_back(std::move(row));
  }
  return {{"site", a.site}, {"tau", values}};
}

json header(const AttributionOptions& options, const Vocabulary& vocab) {
  json out{{"method", to_string(options.method)}};
  if (options.method == AttributionMethod::IntegratedGradients)
    out["ig_steps"] = options.steps, out["baseline"] = to_string(options.baseline);
  if (options.contrast >= 0) out["contrast"] = vocab.token(options.contrast);
  return out;
}

}  // namespace

json token_attribution_to_json(const TokenAttribution& a, const Vocabulary& source_vocab, const Vocabulary& target_vocab) {
  const Attribution& s = a.scores;
  json out{{"step", a.step}, {"token", target_vocab.token(a.token)}, {"token_id", a.token},
           {"source_tokens", tokens_of(source_vocab, a.tokens.source)}, {"source_scores", s.source},
           {"target_tokens", tokens_of(target_vocab, a.tokens.target)}, {"target_scores", s.target},
           {"f", s.f}, {"sum", s.sum}};
  if (a.method == AttributionMethod::IntegratedGradients)
    out["f_baseline"] = s.f_baseline, out["completeness_error"] = s.completeness_error,
    out["completeness_share"] = s.completeness_share, out["suggested_steps"] = s.suggested_steps;
  if (!a.agreement.tau.empty()) out["agreement"] = agreement_to_json(a.agreement);
  return out;
}

json sentence_attribution_to_json(const DecodeSession& session, const AttributionRequest& request) {
  const Model& model = session.model();
  const SentenceAttribution sentence = sentence_attribution(session, *request.pass, request.options);
  json steps = json::array();
  for (const TokenAttribution& a : sentence.steps)
    steps.push_back(token_attribution_to_json(a, model.src_vocab, model.tgt_vocab));
  json out = header(request.options, model.tgt_vocab);
  out["steps"] = std::move(steps);
  if (!sentence.mean.tau.empty()) out["mean_agreement"] = agreement_to_json(sentence.mean);
  return out;
}

json mask_attribution_to_json(const Model& model, const Encoding& encoding, int position, int token,
                              const AttributionRequest& request) {
  const TokenAttribution a = encoding_attribution(model, encoding, *request.pass, position, token, request.options);
  json out = header(request.options, model.src_vocab);
  out.update(token_attribution_to_json(a, model.src_vocab, model.src_vocab));
  return out;
}

}  // namespace attnscope::cli
