#pragma once
// Attribution (analysis/attribution.h) of the predictions a decode session or an encoder-only
// encoding already made: the tokens, the chosen token and the attention come from what they hold;
// only the score's gradients (or the erasures' forwards) are computed. Beside the scores, how far
// each head's attention agrees with them: Kendall's τ-b (analysis/rank_correlation.h) between the
// head's attention row of the explained query and |attribution| over the same tokens:
//   translation:   cross-attention (the per-step site whose keys are the source), over the source;
//   decoder-only:  self-attention (the per-step site whose keys are the target), over the context;
//   encoder-only:  the encoder's self-attention row of the predicted position, over the input.
#include <string>
#include <vector>

#include "analysis/attribution.h"
#include "analysis/attribution_cost.h"
#include "decoding/session.h"
#include "model/encoder_only.h"

namespace attnscope {

struct AttentionAgreement {
  std::string site;  // the site whose rows were compared; empty when no attention was captured
  int layers = 0, heads = 0;
  std::vector<double> tau;  // [layer * heads + head]: τ-b, NaN where undefined (a constant row)
};

struct TokenAttribution {
  int step = 0;        // the session's step, or the predicted position of an encoder-only input
  int token = 0;       // the explained token's id
  int contrast = -1;   // the alternative's id of a contrastive score, else −1
  AttributionMethod method = AttributionMethod::GradientInput;
  train::Tokens tokens;  // what the model read; the scores follow it
  Attribution scores;
  AttentionAgreement agreement;
};

struct SentenceAttribution {
  std::vector<TokenAttribution> steps;  // one per step of the hypothesis explained
  AttentionAgreement mean;              // τ-b per head averaged over the steps where it is defined
};

// The prediction of `step` for the hypothesis extended there as `hypothesis`: by default (`token`
// −1) the token the session chose, else `token`. IndexError for a step or hypothesis the session
// has not; InputError as attribute() for bad options.
TokenAttribution session_attribution(const DecodeSession& session, train::Differentiable& pass, int step,
                                     int hypothesis, const AttributionOptions& options, int token = -1);

// Every step of the path that led to the hypothesis extended as `hypothesis` at step `last` (−1:
// the session's last step), as built through the beam (greedy: the sentence so far), and the mean
// agreement. Integrated gradients over budget at any step is refused before the first step runs.
SentenceAttribution sentence_attribution(const DecodeSession& session, train::Differentiable& pass,
                                         const AttributionOptions& options, int last = -1, int hypothesis = 0);

// The work of session_attribution(session, pass, step, hypothesis, options) and of
// sentence_attribution(session, pass, options, last, hypothesis), counted before anything runs
// (analysis/attribution_cost.h): what a front end multiplies by its measured speed to say how long
// a request will take. max_steps: the most integrated-gradients steps every prediction allows.
AttributionCost session_attribution_cost(const DecodeSession& session, const train::Differentiable& pass, int step,
                                         int hypothesis, const AttributionOptions& options);
AttributionCost sentence_attribution_cost(const DecodeSession& session, const train::Differentiable& pass,
                                          const AttributionOptions& options, int last = -1, int hypothesis = 0);

// The prediction at `position` of an encoder-only encoding (a [MASK]'s), of `token`.
TokenAttribution encoding_attribution(const Model& model, const Encoding& encoding, train::Differentiable& pass,
                                      int position, int token, const AttributionOptions& options);

// Every [MASK] of an encoder-only model's text, explained for its most probable piece.
std::vector<TokenAttribution> fill_mask_attribution(const Model& model, const std::string& text,
                                                    train::Differentiable& pass, const AttributionOptions& options);

// The id of a contrast token named by its text; InputError naming it when `vocab` lacks it.
int contrast_token_id(const Vocabulary& vocab, const std::string& token);

// Options as the front ends name them: a method and a baseline by name, a contrast token by its
// text ('' for none) in `vocab`. InputError naming a bad value.
AttributionOptions attribution_options(const std::string& method, int steps, const std::string& baseline,
                                       const std::string& contrast, const Vocabulary& vocab);

}  // namespace attnscope
