#pragma once
// What drove one prediction: a score per input token, from the gradient of the prediction's score
// with respect to the input embeddings (train/differentiable.h) or from forward passes alone.
//
// The score of token y at logits row r is f = log p(y | context) = z_y − log Σ_v exp z_v, or, with
// a contrast token y' (Yin & Neubig 2022), f = log p(y) − log p(y') = z_y − z_{y'}.
//   gradient × input:       a_i = Σ_d x_id ∂f/∂x_id
//   integrated gradients:   a_i = Σ_d (x_id − x'_id) ∫₀¹ ∂f/∂x_id (x' + α(x − x')) dα
//                           (Sundararajan et al. 2017), the integral by the midpoint rule:
//                           (1/m) Σ_{k=0}^{m−1} ∂f/∂x (x' + (k + ½)/m · (x − x')), m = `steps`.
//                           Baseline x': zero embeddings, or every token's the <pad> embedding;
//                           in both, the target's leading <bos> keeps its own embedding, so it
//                           gets no score: it starts every target, there is no prediction without
//                           it to compare with (special tokens stay in the baseline, as Captum's
//                           and Hugging Face's examples keep them). A prompt the model reads
//                           without <bos> has none: its first token is scored like the others.
//                           Completeness: Σ_i a_i = f(x) − f(x') up to the quadrature's error,
//                           which shrinks as O(1/m²); reported as a share of |f(x) − f(x')|, with
//                           the steps that would bring a share over kCompletenessShare within it.
//   erasure:                a_i = f(x) − f(x without token i): the sentence without the token,
//                           later positions shifted down by one (Li et al. 2016), forward only.
//                           Not erased (score 0): the leading <bos> of a target (where it has
//                           one), the position being predicted (encoder-only) and a side's only
//                           token.
// x_i is the token's embedding as the first layer receives it, before positions are added.
#include <string>
#include <vector>

#include "train/differentiable.h"

namespace attnscope {

enum class AttributionMethod { GradientInput, IntegratedGradients, Erasure };
enum class AttributionBaseline { Zero, Pad };

// "gradient-input" | "integrated-gradients" | "erasure"; InputError naming anything else.
AttributionMethod parse_attribution_method(const std::string& name);
const char* to_string(AttributionMethod method);
// "zero" | "pad"; InputError naming anything else.
AttributionBaseline parse_attribution_baseline(const std::string& name);
const char* to_string(AttributionBaseline baseline);

struct AttributionOptions {
  AttributionMethod method = AttributionMethod::GradientInput;
  static constexpr int kDefaultSteps = 32;
  int steps = kDefaultSteps;  // integrated gradients: points of the midpoint rule, ≥ 1
  AttributionBaseline baseline = AttributionBaseline::Zero;
  int contrast = -1;  // the alternative token's id for a contrastive score; −1: none
  // InputError for IG steps below 1 or above kMaxSteps.
  void validate() const;
  static constexpr int kMaxSteps = 4096;
};

// Integrated gradients: a completeness error above this share of |f(x) − f(x')| is worth more steps.
constexpr double kCompletenessShare = 0.05;

// The steps to suggest after `steps` gave completeness share `share`, when at most `most` are
// allowed: 0 within kCompletenessShare; else ⌈steps · √(share / kCompletenessShare)⌉ (the
// midpoint rule's error falls as 1/m²), at most `most`; `most` for a share that is not finite.
int suggested_ig_steps(double share, int steps, int most);

// The prediction that is explained: row `row` of the logits of a forward over `tokens`, token `token`.
struct AttributionTarget {
  train::Tokens tokens;
  int row = 0;
  int token = 0;
  // tokens.target[0] is the <bos> every input starts with (a translation's decoder start, a
  // prompt's <bos> where the model reads one): kept in the baseline, never erased. False for a
  // prompt read without <bos>, whose first token is the text's.
  bool leading_bos = true;
};

struct Attribution {
  std::vector<float> source, target;  // one score per token of AttributionTarget::tokens, same order
  double f = 0;                   // the score at the input
  double sum = 0;                 // Σ of every token's score
  double f_baseline = 0;          // integrated gradients: the score at the baseline
  double completeness_error = 0;  // integrated gradients: |sum − (f − f_baseline)|
  // integrated gradients: completeness_error / |f − f_baseline| (0 when both are 0, +∞ when only
  // the change is)
  double completeness_share = 0;
  // integrated gradients: 0 when completeness_share is within kCompletenessShare; else the steps
  // that would bring it within by the midpoint rule's 1/m², at most max_ig_steps()
  // (analysis/attribution_cost.h): equal to the steps used when those are already the most allowed.
  int suggested_steps = 0;
};

// Scores every input token of `target` with `options.method`. `pad` is the model's <pad> id (the
// "pad" baseline). InputError for a row, token or contrast token outside the pass's logits, and
// for integrated gradients over budget (analysis/attribution_cost.h), before anything runs.
Attribution attribute(train::Differentiable& pass, const AttributionTarget& target, const AttributionOptions& options,
                      int pad);

}  // namespace attnscope
