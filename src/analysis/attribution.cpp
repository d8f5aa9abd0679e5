#include "analysis/attribution.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "analysis/attribution_cost.h"
#include "core/error.h"

namespace attnscope {

AttributionMethod parse_attribution_method(const std::string& name) {
  if (name == "gradient-input") return AttributionMethod::GradientInput;
  if (name == "integrated-gradients") return AttributionMethod::IntegratedGradients;
  if (name == "erasure") return AttributionMethod::Erasure;
  throw InputError("unknown attribution method '" + name + "' (gradient-input, integrated-gradients or erasure)");
}

const char* to_string(AttributionMethod method) {
  switch (method) {
    case AttributionMethod::GradientInput: return "gradient-input";
    case AttributionMethod::IntegratedGradients: return "integrated-gradients";
    case AttributionMethod::Erasure: return "erasure";
  }
  return "";
}

AttributionBaseline parse_attribution_baseline(const std::string& name) {
  if (name == "zero") return AttributionBaseline::Zero;
  if (name == "pad") return AttributionBaseline::Pad;
  throw InputError("unknown attribution baseline '" + name + "' (zero or pad)");
}

const char* to_string(AttributionBaseline baseline) { return baseline == AttributionBaseline::Pad ? "pad" : "zero"; }

int suggested_ig_steps(double share, int steps, int most) {
  if (!(share > kCompletenessShare)) return 0;
  if (!std::isfinite(share)) return most;
  return static_cast<int>(std::min(std::ceil(steps * std::sqrt(share / kCompletenessShare)), static_cast<double>(most)));
}

void AttributionOptions::validate() const {
  if (method == AttributionMethod::IntegratedGradients && (steps < 1 || steps > kMaxSteps))
    throw InputError("integrated gradients needs steps in [1, " + std::to_string(kMaxSteps) + "], got " +
                     std::to_string(steps));
}

namespace {

using train::InputEmbeddings;
using train::Tokens;

// The side whose rows the logits are: the target, or the source of an encoder-only model.
const std::vector<int>& predicted_side(const Tokens& tokens) {
  return tokens.target.empty() ? tokens.source : tokens.target;
}

// f at `row` of `logits` (log p(token), or minus log p(contrast)); its gradient with respect to the
// logits goes to `d_logits` when given.
double score(const Matrix& logits, int row, int token, int contrast, Matrix* d_logits) {
  if (row < 0 || row >= logits.rows())
    throw InputError("attribution row " + std::to_string(row) + " is outside the model's " +
                     std::to_string(logits.rows()) + " output rows");
  const auto z = logits.row(row);
  double f = 0;
  if (d_logits) d_logits->setZero(logits.rows(), logits.cols());
  if (contrast >= 0) {
    f = static_cast<double>(z(token)) - z(contrast);
    if (d_logits) (*d_logits)(row, token) += 1.0f, (*d_logits)(row, contrast) -= 1.0f;
    return f;
  }
  // log-softmax in double: a sentence's scores are differences of nearby values.
  const double max = z.maxCoeff();
  double total = 0;
  for (Eigen::Index v = 0; v < z.size(); ++v) total += std::exp(static_cast<double>(z(v)) - max);
  const double log_total = max + std::log(total);
  f = static_cast<double>(z(token)) - log_total;
  if (d_logits) {
    for (Eigen::Index v = 0; v < z.size(); ++v)
      (*d_logits)(row, v) = static_cast<float>(-std::exp(static_cast<double>(z(v)) - log_total));
    (*d_logits)(row, token) += 1.0f;
  }
  return f;
}

// Σ_d a_id b_id per row.
std::vector<float> row_dots(const Matrix& a, const Matrix& b) {
  std::vector<float> out(static_cast<std::size_t>(a.rows()));
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    out[static_cast<std::size_t>(i)] = static_cast<float>((a.row(i).cast<double>().array() * b.row(i).cast<double>().array()).sum());
  return out;
}

double total(const Attribution& a) {
  double s = 0;
  for (float v : a.source) s += v;
  for (float v : a.target) s += v;
  return s;
}

class Scorer {
 public:
  Scorer(train::Differentiable& pass, const AttributionTarget& target, int contrast)
      : pass_(pass), target_(target), contrast_(contrast) {
    const int vocab = pass.vocab_size();
    if (target.token < 0 || target.token >= vocab)
      throw InputError("attribution token " + std::to_string(target.token) + " is outside the vocabulary (size " +
                       std::to_string(vocab) + ")");
    if (contrast >= vocab)
      throw InputError("contrast token " + std::to_string(contrast) + " is outside the vocabulary (size " +
                       std::to_string(vocab) + ")");
  }

  // f at these input embeddings (of the target's tokens), with its gradient when asked.
  double at(const InputEmbeddings& x, InputEmbeddings* gradient) {
    return at(target_.tokens, target_.row, x, gradient);
  }
  double at(const Tokens& tokens, int row, const InputEmbeddings& x, InputEmbeddings* gradient) {
    const Matrix logits = pass_.forward(tokens, x);
    if (!gradient) return score(logits, row, target_.token, contrast_, nullptr);
    Matrix d_logits;
    const double f = score(logits, row, target_.token, contrast_, &d_logits);
    *gradient = pass_.backward(d_logits);
    return f;
  }

 private:
  train::Differentiable& pass_;
  const AttributionTarget& target_;
  int contrast_;
};

// x' of the header: zeros or pads, the target's leading <bos> (where it has one) as it is.
InputEmbeddings baseline_of(train::Differentiable& pass, const AttributionTarget& target, const InputEmbeddings& x,
                            AttributionBaseline baseline, int pad) {
  const Tokens& tokens = target.tokens;
  InputEmbeddings base;
  if (baseline == AttributionBaseline::Pad) {
    base = pass.embed({std::vector<int>(tokens.source.size(), pad), std::vector<int>(tokens.target.size(), pad)});
  } else {
    base = {Matrix::Zero(x.source.rows(), x.source.cols()), Matrix::Zero(x.target.rows(), x.target.cols())};
  }
  if (base.target.rows() > 0 && target.leading_bos) base.target.row(0) = x.target.row(0);
  return base;
}

// completeness_share and suggested_steps of the header, for `steps` used and at most `most`.
void judge_completeness(Attribution& a, int steps, int most) {
  const double change = std::abs(a.f - a.f_baseline);
  a.completeness_share = change > 0 ? a.completeness_error / change : a.completeness_error > 0 ? INFINITY : 0.0;
  a.suggested_steps = suggested_ig_steps(a.completeness_share, steps, most);
}

Attribution gradient_input(Scorer& scorer, const InputEmbeddings& x) {
  InputEmbeddings g;
  Attribution a;
  a.f = scorer.at(x, &g);
  a.source = row_dots(x.source, g.source);
  a.target = row_dots(x.target, g.target);
  a.sum = total(a);
  return a;
}

Attribution integrated_gradients(Scorer& scorer, const InputEmbeddings& x, const InputEmbeddings& base, int steps) {
  InputEmbeddings mean{Matrix::Zero(x.source.rows(), x.source.cols()), Matrix::Zero(x.target.rows(), x.target.cols())};
  for (int k = 0; k < steps; ++k) {
    const float alpha = (static_cast<float>(k) + 0.5f) / static_cast<float>(steps);
    const InputEmbeddings point{base.source + alpha * (x.source - base.source), base.target + alpha * (x.target - base.target)};
    InputEmbeddings g;
    scorer.at(point, &g);
    mean.source += g.source / static_cast<float>(steps);
    mean.target += g.target / static_cast<float>(steps);
  }
  Attribution a;
  a.f = scorer.at(x, nullptr);
  a.f_baseline = scorer.at(base, nullptr);
  a.source = row_dots(x.source - base.source, mean.source);
  a.target = row_dots(x.target - base.target, mean.target);
  a.sum = total(a);
  a.completeness_error = std::abs(a.sum - (a.f - a.f_baseline));
  return a;
}

std::size_t token_count(const Tokens& tokens) { return tokens.source.size() + tokens.target.size(); }

Matrix without_row(const Matrix& m, Eigen::Index i) {
  Matrix out(m.rows() - 1, m.cols());
  out.topRows(i) = m.topRows(i);
  out.bottomRows(m.rows() - 1 - i) = m.bottomRows(m.rows() - 1 - i);
  return out;
}

// One side's erasures: `side` is &Tokens::source or &Tokens::target.
std::vector<float> erase_each(Scorer& scorer, const AttributionTarget& target, const InputEmbeddings& x, double f,
                              std::vector<int> Tokens::*side, Matrix InputEmbeddings::*rows) {
  const std::vector<int>& ids = target.tokens.*side;
  const bool predicted = &(target.tokens.*side) == &predicted_side(target.tokens);
  std::vector<float> out(ids.size(), 0.0f);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const int position = static_cast<int>(i);
    if (ids.size() == 1) break;                                        // nothing would be left to read
    const bool encoder_only = target.tokens.target.empty();
    if (predicted && !encoder_only && i == 0 && target.leading_bos) continue;  // the <bos> every input starts with
    if (predicted && encoder_only && position == target.row) continue;  // the position being predicted
    Tokens shorter = target.tokens;
    (shorter.*side).erase((shorter.*side).begin() + position);
    InputEmbeddings y = x;
    y.*rows = without_row(x.*rows, position);
    const int row = predicted && position <= target.row ? target.row - 1 : target.row;
    out[i] = static_cast<float>(f - scorer.at(shorter, row, y, nullptr));
  }
  return out;
}

Attribution erasure(Scorer& scorer, const AttributionTarget& target, const InputEmbeddings& x) {
  Attribution a;
  a.f = scorer.at(x, nullptr);
  a.source = erase_each(scorer, target, x, a.f, &Tokens::source, &InputEmbeddings::source);
  a.target = erase_each(scorer, target, x, a.f, &Tokens::target, &InputEmbeddings::target);
  a.sum = total(a);
  return a;
}

}  // namespace

Attribution attribute(train::Differentiable& pass, const AttributionTarget& target, const AttributionOptions& options,
                      int pad) {
  options.validate();
  check_attribution_budget(pass.parameter_count(), token_count(target.tokens), options);
  Scorer scorer(pass, target, options.contrast);
  const InputEmbeddings x = pass.embed(target.tokens);
  switch (options.method) {
    case AttributionMethod::GradientInput: return gradient_input(scorer, x);
    case AttributionMethod::IntegratedGradients: {
      Attribution a =
          integrated_gradients(scorer, x, baseline_of(pass, target, x, options.baseline, pad), options.steps);
      judge_completeness(a, options.steps, max_ig_steps(pass.parameter_count(), token_count(target.tokens)));
      return a;
    }
    case AttributionMethod::Erasure: return erasure(scorer, target, x);
  }
  throw InputError("unknown attribution method");
}

}  // namespace attnscope
