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
//                           Baseline x': zero embeddings, or every token's the <pad> embedding.
//                           Completeness: Σ_i a_i = f(x) − f(x') up to the quadrature's error,
//                           which shrinks as O(1/m²).
//   erasure:                a_i = f(x) − f(x without token i): the sentence without the token,
//                           later positions shifted down by one (Li et al. 2016), forward only.
//                           Not erased (score 0): the leading <bos> of a target, the position
//                           being predicted (encoder-only) and a side's only token.
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
  int steps = 32;  // integrated gradients: points of the midpoint rule, ≥ 1
  AttributionBaseline baseline = AttributionBaseline::Zero;
  int contrast = -1;  // the alternative token's id for a contrastive score; −1: none
  // InputError for IG steps below 1 or above kMaxSteps.
  void validate() const;
  static constexpr int kMaxSteps = 4096;
};

// The prediction that is explained: row `row` of the logits of a forward over `tokens`, token `token`.
struct AttributionTarget {
  train::Tokens tokens;
  int row = 0;
  int token = 0;
};

struct Attribution {
  std::vector<float> source, target;  // one score per token of AttributionTarget::tokens, same order
  double f = 0;                   // the score at the input
  double sum = 0;                 // Σ of every token's score
  double f_baseline = 0;          // integrated gradients: the score at the baseline
  double completeness_error = 0;  // integrated gradients: |sum − (f − f_baseline)|
};

// Scores every input token of `target` with `options.method`. `pad` is the model's <pad> id (the
// "pad" baseline). InputError for a row, token or contrast token outside the pass's logits.
Attribution attribute(train::Differentiable& pass, const AttributionTarget& target, const AttributionOptions& options,
                      int pad);

}  // namespace attnscope
