#pragma once
// attnscope-cli's --attribution: what drove each generated token (analysis/attribution.h), added
// to the --json output of translate, generate and fill-mask. Field names are part of the CLI's
// stable interface (docs/cli.md).
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/attribution_session.h"

namespace attnscope::cli {

struct AttributionRequest {
  bool on = false;
  AttributionOptions options;
  std::string contrast;  // --contrast TOKEN, resolved into options.contrast by prepare_attribution
  std::shared_ptr<train::Differentiable> pass;  // the model's, built once by prepare_attribution
};

extern const char* kAttributionUsage;

// Reads one of --attribution METHOD, --ig-steps N, --baseline zero|pad, --contrast TOKEN into
// `request` (`value` yields the flag's argument); false for any other flag. Throws Error naming a
// bad value.
bool parse_attribution_flag(const std::string& flag, const std::function<std::string()>& value,
                            AttributionRequest& request);

// Once the model is loaded: its differentiable pass, its weights read again from its file, and the
// contrast token's id in `vocab`. Throws InputError for a contrast token the vocabulary lacks, or a
// family without a pass.
void prepare_attribution(AttributionRequest& request, const std::shared_ptr<const Model>& model, const Vocabulary& vocab);

// {"method", "ig_steps"?, "baseline"?, "contrast"?, "steps": [per step], "mean_agreement"} for the
// sentence the session decoded.
nlohmann::json sentence_attribution_to_json(const DecodeSession& session, const AttributionRequest& request);

// The same for the prediction `token` at `position` of an encoder-only encoding (a [MASK]'s).
nlohmann::json mask_attribution_to_json(const Model& model, const Encoding& encoding, int position, int token,
                                        const AttributionRequest& request);

// One explained prediction: tokens, scores, f (and IG's f_baseline, completeness_error,
// completeness_share, suggested_steps), τ per head.
nlohmann::json token_attribution_to_json(const TokenAttribution& a, const Vocabulary& source_vocab,
                                         const Vocabulary& target_vocab);

}  // namespace attnscope::cli
