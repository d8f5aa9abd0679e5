// Attribution (analysis/attribution.h) against references computed here in double precision:
// a small differentiable model whose gradient is known in closed form, Kendall's τ-b counted by
// hand, and a decode session of the toy model read through the same small model; then the
// families' own passes (train/differentiable.h) against torch.autograd through the PyTorch
// references (tests/golden/attribution/, models/goldens/make_attribution_goldens.py).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>

#include "analysis/attribution.h"
#include "analysis/attribution_cost.h"
#include "analysis/attribution_session.h"
#include "analysis/rank_correlation.h"
#include "analysis/session_analysis.h"
#include "io/safetensors.h"
#include "test_support.h"

namespace attnscope {
namespace {

using train::InputEmbeddings;
using train::Tokens;

constexpr int kDim = 4;

// logits_r = W tanh(u_r) + b, with u_r = Σ_i w_s(r, i) (s_i + p_i) + Σ_{j ≤ r} w_t(r, j) (t_j + p_j):
// the source mixed with fixed weights, the target prefix averaged causally; with no target
// (encoder-only), the rows are the source's, each mixing its neighbours. Positions p_i are added
// inside, as the engine's passes do.
class ClosedForm : public train::Differentiable {
 public:
  explicit ClosedForm(int vocab) : vocab_(vocab), embed_(vocab, kDim), w_(vocab, kDim), b_(vocab) {
    for (int v = 0; v < vocab; ++v)
      for (int d = 0; d < kDim; ++d) {
        embed_(v, d) = static_cast<float>(std::sin(1.3 * v + 0.7 * d));
        w_(v, d) = static_cast<float>(std::cos(0.9 * v - 1.1 * d));
      }
    for (int v = 0; v < vocab; ++v) b_(v) = static_cast<float>(0.1 * std::sin(v));
  }
  static double position(int i, int d) { return 0.05 * (i + 1) * (d % 2 ? 1 : -1); }
  static double source_weight(int row, int i, bool encoder_only) {
    return encoder_only ? 1.0 / (1 + std::abs(row - i)) : 0.3 + 0.1 * i;
  }
  static double target_weight(int row, int j) { return j <= row ? 1.0 / (row + 1) : 0.0; }

  InputEmbeddings embed(const Tokens& t) const override {
    auto rows = [&](const std::vector<int>& ids) {
      Matrix m(static_cast<Eigen::Index>(ids.size()), kDim);
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= vocab_) throw InputError("id outside the vocabulary");
        m.row(static_cast<Eigen::Index>(i)) = embed_.row(ids[i]);
      }
      return m;
    };
    return {rows(t.source), rows(t.target)};
  }
  Matrix forward(const Tokens& t, const InputEmbeddings& x) override {
    ++forwards;
    x_ = x;
    encoder_only_ = t.target.empty();
    const Eigen::Index rows = encoder_only_ ? x.source.rows() : x.target.rows();
    z_.resize(rows, kDim);
    for (Eigen::Index r = 0; r < rows; ++r)
      for (int d = 0; d < kDim; ++d) {
        double u = 0;
        for (Eigen::Index i = 0; i < x.source.rows(); ++i)
          u += source_weight(int(r), int(i), encoder_only_) * (x.source(i, d) + position(int(i), d));
        if (!encoder_only_)
          for (Eigen::Index j = 0; j < x.target.rows(); ++j)
            u += target_weight(int(r), int(j)) * (x.target(j, d) + position(int(j), d));
        z_(r, d) = static_cast<float>(std::tanh(u));
      }
    return (z_ * w_.transpose()).rowwise() + b_;
  }
  InputEmbeddings backward(const Matrix& d_logits) override {
    InputEmbeddings g{Matrix::Zero(x_.source.rows(), kDim), Matrix::Zero(x_.target.rows(), kDim)};
    for (Eigen::Index r = 0; r < z_.rows(); ++r) {
      const RowVector du = (d_logits.row(r) * w_).cwiseProduct((1.0f - z_.row(r).array().square()).matrix());
      for (Eigen::Index i = 0; i < x_.source.rows(); ++i)
        g.source.row(i) += static_cast<float>(source_weight(int(r), int(i), encoder_only_)) * du;
      for (Eigen::Index j = 0; j < x_.target.rows(); ++j)
        g.target.row(j) += static_cast<float>(target_weight(int(r), int(j))) * du;
    }
    return g;
  }
  int vocab_size() const override { return vocab_; }
  std::size_t parameter_count() const override {
    return claimed_parameters ? claimed_parameters : static_cast<std::size_t>(embed_.size() + w_.size() + b_.size());
  }

  int vocab_;
  std::size_t claimed_parameters = 0;  // a bigger model's count, to reach the budget with this one's pass
  int forwards = 0;
  Matrix embed_, w_;
  RowVector b_;

 private:
  InputEmbeddings x_;
  Matrix z_;
  bool encoder_only_ = false;
};

// The reference: the same model written out for one row, in double, with the score's gradient
// taken by hand.
struct Reference {
  const ClosedForm& m;
  using Rows = std::vector<std::vector<double>>;

  Rows rows(const std::vector<int>& ids) const {
    Rows out;
    for (int id : ids) {
      out.emplace_back();
      for (int d = 0; d < kDim; ++d) out.back().push_back(m.embed_(id, d));
    }
    return out;
  }
  std::vector<double> u(const Rows& s, const Rows& t, int row) const {
    std::vector<double> u(kDim, 0.0);
    for (int d = 0; d < kDim; ++d) {
      for (std::size_t i = 0; i < s.size(); ++i)
        u[d] += ClosedForm::source_weight(row, int(i), t.empty()) * (s[i][d] + ClosedForm::position(int(i), d));
      for (std::size_t j = 0; j < t.size(); ++j)
        u[d] += ClosedForm::target_weight(row, int(j)) * (t[j][d] + ClosedForm::position(int(j), d));
    }
    return u;
  }
  std::vector<double> logits(const Rows& s, const Rows& t, int row) const {
    const auto uu = u(s, t, row);
    std::vector<double> l(m.vocab_);
    for (int v = 0; v < m.vocab_; ++v) {
      l[v] = m.b_(v);
      for (int d = 0; d < kDim; ++d) l[v] += m.w_(v, d) * std::tanh(uu[d]);
    }
    return l;
  }
  // ∂f/∂logits of f = log p(y) (contrast < 0) or l_y − l_contrast.
  static std::vector<double> d_score(const std::vector<double>& l, int y, int contrast) {
    std::vector<double> d(l.size(), 0.0);
    if (contrast < 0) {
      double z = 0;
      for (double v : l) z += std::exp(v);
      for (std::size_t v = 0; v < l.size(); ++v) d[v] = -std::exp(l[v]) / z;
    } else {
      d[contrast] -= 1;
    }
    d[y] += 1;
    return d;
  }
  double f(const Rows& s, const Rows& t, int row, int y, int contrast) const {
    const auto l = logits(s, t, row);
    if (contrast >= 0) return l[y] - l[contrast];
    double z = 0;
    for (double v : l) z += std::exp(v);
    return l[y] - std::log(z);
  }
  // ∂f/∂x for every source row, then every target row.
  Rows gradient(const Rows& s, const Rows& t, int row, int y, int contrast) const {
    const auto uu = u(s, t, row);
    const auto d = d_score(logits(s, t, row), y, contrast);
    std::vector<double> du(kDim, 0.0);
    for (int k = 0; k < kDim; ++k) {
      for (int v = 0; v < m.vocab_; ++v) du[k] += d[v] * m.w_(v, k);
      du[k] *= 1 - std::tanh(uu[k]) * std::tanh(uu[k]);
    }
    Rows g;
    for (std::size_t i = 0; i < s.size(); ++i) {
      g.emplace_back();
      for (int k = 0; k < kDim; ++k) g.back().push_back(ClosedForm::source_weight(row, int(i), t.empty()) * du[k]);
    }
    for (std::size_t j = 0; j < t.size(); ++j) {
      g.emplace_back();
      for (int k = 0; k < kDim; ++k) g.back().push_back(ClosedForm::target_weight(row, int(j)) * du[k]);
    }
    return g;
  }
  static Rows joined(const Rows& s, const Rows& t) {
    Rows all = s;
    all.insert(all.end(), t.begin(), t.end());
    return all;
  }
  static Rows split_back(const Rows& all, std::size_t sources, Rows& t) {
    t.assign(all.begin() + static_cast<std::ptrdiff_t>(sources), all.end());
    return Rows(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(sources));
  }
  std::vector<float> gradient_input(const Tokens& tk, int row, int y, int contrast) const {
    const Rows s = rows(tk.source), t = rows(tk.target), all = joined(s, t);
    const Rows g = gradient(s, t, row, y, contrast);
    std::vector<float> out;
    for (std::size_t i = 0; i < all.size(); ++i) {
      double a = 0;
      for (int k = 0; k < kDim; ++k) a += all[i][k] * g[i][k];
      out.push_back(static_cast<float>(a));
    }
    return out;
  }
  // The zero baseline but for the target's first row (<bos>), which keeps its embedding.
  Rows zero_baseline_target(const Tokens& tk) const {
    Rows t(tk.target.size(), std::vector<double>(kDim, 0.0));
    if (!t.empty()) t[0] = rows(tk.target)[0];
    return t;
  }
  // IG by the midpoint rule with `steps` points, from the zero baseline (<bos> kept).
  std::vector<float> integrated(const Tokens& tk, int row, int y, int steps) const {
    const Rows all = joined(rows(tk.source), rows(tk.target));
    const Rows base = joined(Rows(tk.source.size(), std::vector<double>(kDim, 0.0)), zero_baseline_target(tk));
    std::vector<double> sum(all.size(), 0.0);
    for (int k = 0; k < steps; ++k) {
      const double alpha = (k + 0.5) / steps;
      Rows point = all;
      for (std::size_t i = 0; i < point.size(); ++i)
        for (int d = 0; d < kDim; ++d) point[i][d] = base[i][d] + alpha * (all[i][d] - base[i][d]);
      Rows t;
      const Rows s = split_back(point, tk.source.size(), t);
      const Rows g = gradient(s, t, row, y, -1);
      for (std::size_t i = 0; i < all.size(); ++i)
        for (int d = 0; d < kDim; ++d) sum[i] += (all[i][d] - base[i][d]) * g[i][d] / steps;
    }
    return std::vector<float>(sum.begin(), sum.end());
  }
};

std::vector<float> all_scores(const Attribution& a) {
  std::vector<float> out = a.source;
  out.insert(out.end(), a.target.begin(), a.target.end());
  return out;
}

void expect_near_all(const std::vector<float>& want, const std::vector<float>& got, const std::string& what,
                     double tolerance = 1e-5) {
  ASSERT_EQ(want.size(), got.size()) << what;
  double worst = 0;
  std::size_t at = 0;
  ASSERT_TRUE(testing::max_abs_difference(want.data(), got.data(), want.size(), what, worst, at));
  EXPECT_LE(worst, tolerance) << what << " at " << at;
}

const Tokens kTranslation{{3, 7, 1, 5}, {0, 4, 6}};  // source; <bos> and a prefix of two
const int kVocab = 9;

TEST(Attribution, GradientTimesInputMatchesTheClosedForm) {
  ClosedForm model(kVocab);
  Reference ref{model};
  const Attribution a = attribute(model, {kTranslation, 2, 8}, {}, 0);
  expect_near_all(ref.gradient_input(kTranslation, 2, 8, -1), all_scores(a), "gradient x input");
  const Reference::Rows s = ref.rows(kTranslation.source), t = ref.rows(kTranslation.target);
  EXPECT_NEAR(a.f, ref.f(s, t, 2, 8, -1), 1e-5);
  double sum = 0;
  for (float v : all_scores(a)) sum += v;
  EXPECT_NEAR(a.sum, sum, 1e-5);
  // An earlier row reads a shorter prefix: the later target tokens get nothing.
  const Attribution early = attribute(model, {kTranslation, 0, 8}, {}, 0);
  EXPECT_EQ(early.target[1], 0.0f);
  EXPECT_EQ(early.target[2], 0.0f);
}

TEST(Attribution, EncoderOnlyScoresTheSourceRows) {
  ClosedForm model(kVocab);
  Reference ref{model};
  const Tokens text{{2, 5, 8, 1, 3}, {}};
  const Attribution a = attribute(model, {text, 3, 6}, {}, 0);
  EXPECT_TRUE(a.target.empty());
  expect_near_all(ref.gradient_input(text, 3, 6, -1), all_scores(a), "encoder-only gradient x input");
}

TEST(Attribution, ContrastiveScoreIsTheLogitDifference) {
  ClosedForm model(kVocab);
  Reference ref{model};
  AttributionOptions options;
  options.contrast = 3;
  const Attribution a = attribute(model, {kTranslation, 2, 8}, options, 0);
  expect_near_all(ref.gradient_input(kTranslation, 2, 8, 3), all_scores(a), "contrastive gradient x input");
  EXPECT_NEAR(a.f, ref.f(ref.rows(kTranslation.source), ref.rows(kTranslation.target), 2, 8, 3), 1e-5);
}

TEST(Attribution, IntegratedGradientsMatchTheMidpointRuleAndComplete) {
  ClosedForm model(kVocab);
  Reference ref{model};
  AttributionOptions options;
  options.method = AttributionMethod::IntegratedGradients;
  double previous = INFINITY;
  for (int steps : {1, 4, 16, 64}) {
    options.steps = steps;
    const Attribution a = attribute(model, {kTranslation, 2, 8}, options, 0);
    expect_near_all(ref.integrated(kTranslation, 2, 8, steps), all_scores(a), "IG, " + std::to_string(steps) + " steps");
    const Reference::Rows s = ref.rows(kTranslation.source);
    const Reference::Rows zs(s.size(), std::vector<double>(kDim, 0.0)), zt = ref.zero_baseline_target(kTranslation);
    const double f = ref.f(s, ref.rows(kTranslation.target), 2, 8, -1), f0 = ref.f(zs, zt, 2, 8, -1);
    EXPECT_NEAR(a.f_baseline, f0, 1e-5);
    EXPECT_EQ(a.target[0], 0.0f) << "<bos> is in the baseline as it is";
    EXPECT_NEAR(a.completeness_error, std::abs(a.sum - (a.f - a.f_baseline)), 1e-9);
    EXPECT_NEAR(a.completeness_share, a.completeness_error / std::abs(f - f0), 1e-5);
    EXPECT_LT(a.completeness_error, previous) << steps << " steps";
    previous = a.completeness_error;
  }
  // The midpoint rule's error falls as 1/m²: at 64 steps well under a thousandth of a nat.
  EXPECT_LT(previous, 1e-3);
}

TEST(Attribution, PadBaselineStartsFromThePadEmbedding) {
  ClosedForm model(kVocab);
  Reference ref{model};
  AttributionOptions options;
  options.method = AttributionMethod::IntegratedGradients;
  options.baseline = AttributionBaseline::Pad;
  options.steps = 64;
  const int pad = 1;
  const Attribution a = attribute(model, {kTranslation, 2, 8}, options, pad);
  const Tokens pads{std::vector<int>(4, pad), {kTranslation.target[0], pad, pad}};  // <bos> kept
  EXPECT_NEAR(a.f_baseline, ref.f(ref.rows(pads.source), ref.rows(pads.target), 2, 8, -1), 1e-5);
  EXPECT_LT(a.completeness_error, 1e-3);
  // A token equal to the baseline's (the source's pad, <bos>) moves nothing: its score is 0.
  EXPECT_NEAR(a.source[2], 0.0, 1e-7);
  EXPECT_EQ(a.target[0], 0.0f);
}

// The suggestion's rule on chosen numbers, worked by hand: 32 steps at a share of 1 (20 times the
// threshold) need 32 · √20 = 143.1, so 144; 10 steps at 0.3 (6 times), 10 · √6 = 24.5, so 25.
TEST(Attribution, SuggestedStepsFollowTheMidpointRulesErrorUpToTheCap) {
  EXPECT_EQ(suggested_ig_steps(1.0, 32, 4096), 144);
  EXPECT_EQ(suggested_ig_steps(0.3, 10, 4096), 25);
  EXPECT_EQ(suggested_ig_steps(1.0, 32, 100), 100);  // the cap
  EXPECT_EQ(suggested_ig_steps(1.0, 32, 32), 32);    // already at the cap: the steps used
  EXPECT_EQ(suggested_ig_steps(0.05, 32, 4096), 0);  // within the threshold
  EXPECT_EQ(suggested_ig_steps(0.0, 32, 4096), 0);
  EXPECT_EQ(suggested_ig_steps(INFINITY, 32, 500), 500);
  EXPECT_EQ(suggested_ig_steps(NAN, 32, 500), 0);
}

// Integrated gradients may take (3·m + 2) forwards' work of P·T multiply-adds each within the
// budget: the most steps that fit run, one more is refused before anything runs, naming the cap.
TEST(AttributionCost, IntegratedGradientsOverBudgetAreRefusedNamingTheMostSteps) {
  ClosedForm model(kVocab);
  model.claimed_parameters = 10'000'000;  // a 40 MB model
  const std::size_t tokens = kTranslation.source.size() + kTranslation.target.size();
  const double forward = 1e7 * static_cast<double>(tokens);
  const int most = max_ig_steps(model.claimed_parameters, tokens);
  ASSERT_GT(most, AttributionOptions::kDefaultSteps) << "the budget, not the floor, must set the cap here";
  EXPECT_LE((3.0 * most + 2) * forward, kAttributionBudget);
  EXPECT_GT((3.0 * (most + 1) + 2) * forward, kAttributionBudget);
  AttributionOptions options;
  options.method = AttributionMethod::IntegratedGradients;
  options.steps = most;
  EXPECT_NO_THROW(attribute(model, {kTranslation, 2, 8}, options, 0));
  EXPECT_EQ(attribution_cost(model.claimed_parameters, tokens, options).passes, most + 2);
  options.steps = most + 1;
  const std::string message = testing::thrown_message<InputError>([&] { attribute(model, {kTranslation, 2, 8}, options, 0); });
  EXPECT_NE(message.find("integrated gradients with " + std::to_string(most + 1) + " steps over 7 tokens"),
            std::string::npos) << message;
  EXPECT_NE(message.find("use at most " + std::to_string(most) + " steps"), std::string::npos) << message;
  // The other methods are not capped: one pass, or one forward per token.
  options.method = AttributionMethod::GradientInput;
  EXPECT_NO_THROW(attribute(model, {kTranslation, 2, 8}, options, 0));
  EXPECT_EQ(attribution_cost(model.claimed_parameters, tokens, options).work, 3 * forward);
  // However big the model or long the input, the default steps run.
  EXPECT_EQ(max_ig_steps(1'000'000'000'000, tokens), AttributionOptions::kDefaultSteps);
  model.claimed_parameters = 1'000'000'000'000;
  options.method = AttributionMethod::IntegratedGradients;
  options.steps = AttributionOptions::kDefaultSteps;
  EXPECT_NO_THROW(attribute(model, {kTranslation, 2, 8}, options, 0));
  options.steps = AttributionOptions::kDefaultSteps + 1;
  EXPECT_THROW(attribute(model, {kTranslation, 2, 8}, options, 0), InputError);
  EXPECT_EQ(max_ig_steps(1, 1), AttributionOptions::kMaxSteps);
}

TEST(Attribution, ErasureRemovesOneTokenAndShiftsTheRest) {
  ClosedForm model(kVocab);
  Reference ref{model};
  AttributionOptions options;
  options.method = AttributionMethod::Erasure;
  const Attribution a = attribute(model, {kTranslation, 2, 8}, options, 0);
  const Reference::Rows s = ref.rows(kTranslation.source), t = ref.rows(kTranslation.target);
  const double f = ref.f(s, t, 2, 8, -1);
  std::vector<float> want;
  for (std::size_t i = 0; i < s.size(); ++i) {
    Reference::Rows shorter = s;
    shorter.erase(shorter.begin() + static_cast<std::ptrdiff_t>(i));
    want.push_back(static_cast<float>(f - ref.f(shorter, t, 2, 8, -1)));
  }
  want.push_back(0.0f);  // <bos> is not erased
  for (std::size_t j = 1; j < t.size(); ++j) {
    Reference::Rows shorter = t;
    shorter.erase(shorter.begin() + static_cast<std::ptrdiff_t>(j));
    want.push_back(static_cast<float>(f - ref.f(s, shorter, 1, 8, -1)));
  }
  expect_near_all(want, all_scores(a), "erasure");
}

TEST(Attribution, ErasureKeepsThePredictedPositionOfAnEncoderOnlyInput) {
  ClosedForm model(kVocab);
  Reference ref{model};
  AttributionOptions options;
  options.method = AttributionMethod::Erasure;
  const Tokens text{{2, 5, 8, 1}, {}};
  const Attribution a = attribute(model, {text, 2, 6}, options, 0);
  const Reference::Rows s = ref.rows(text.source);
  const double f = ref.f(s, {}, 2, 6, -1);
  Reference::Rows without_first(s.begin() + 1, s.end());
  EXPECT_NEAR(a.source[0], f - ref.f(without_first, {}, 1, 6, -1), 1e-5);  // the row moves up with it
  EXPECT_EQ(a.source[2], 0.0f);
}

TEST(Attribution, BadInputIsAnInputErrorNamingTheValue) {
  ClosedForm model(kVocab);
  AttributionOptions ig;
  ig.method = AttributionMethod::IntegratedGradients;
  ig.steps = 0;
  auto message = [&](auto&& f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no InputError");
  };
  EXPECT_NE(message([&] { attribute(model, {kTranslation, 2, 8}, ig, 0); }).find("got 0"), std::string::npos);
  EXPECT_NE(message([&] { parse_attribution_method("saliency"); }).find("'saliency'"), std::string::npos);
  EXPECT_NE(message([&] { parse_attribution_baseline("mean"); }).find("'mean'"), std::string::npos);
  AttributionOptions contrast;
  contrast.contrast = kVocab;
  EXPECT_NE(message([&] { attribute(model, {kTranslation, 2, 8}, contrast, 0); }).find("contrast token 9"),
            std::string::npos);
  EXPECT_NE(message([&] { attribute(model, {kTranslation, 3, 8}, {}, 0); }).find("row 3"), std::string::npos);
  EXPECT_NE(message([&] { contrast_token_id(Vocabulary({"a", "b"}), "zebra"); }).find("'zebra'"), std::string::npos);
  EXPECT_EQ(contrast_token_id(Vocabulary({"a", "b"}), "b"), 1);
}

TEST(RankCorrelation, KendallTauBCountsTiesAsScipyDoes) {
  // Pairs counted by hand: 2 concordant, 6 discordant, 2 ties in x, 1 in y, of 10:
  // τ-b = (2 − 6) / √(8 · 9).
  EXPECT_NEAR(kendall_tau_b({12, 2, 1, 12, 2}, {1, 4, 7, 1, 0}), -4.0 / std::sqrt(72.0), 1e-12);
  EXPECT_DOUBLE_EQ(kendall_tau_b({1, 2, 3}, {10, 20, 30}), 1.0);
  EXPECT_DOUBLE_EQ(kendall_tau_b({1, 2, 3}, {3, 2, 1}), -1.0);
  EXPECT_TRUE(std::isnan(kendall_tau_b({1, 1, 1}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(kendall_tau_b({1}, {1})));
  EXPECT_THROW(kendall_tau_b({1, 2}, {1}), InputError);
}

// The session's tokens, chosen tokens and attention, read through the closed-form model sized to
// the toy's vocabulary: what session_attribution adds to attribute().
TEST(AttributionSession, ExplainsTheChosenTokensWithTheSessionsAttention) {
  const auto model = Model::load_file(testing::frozen_toy_path());
  DecodeOptions options;
  options.capture.attention = true;
  DecodeSession session(model, "i can eat apple", options);
  session.run();
  ClosedForm pass(std::max(model->src_vocab.size(), model->tgt_vocab.size()));
  const SentenceAttribution sentence = sentence_attribution(session, pass, {});
  const std::vector<int> chosen = session.nbest()[0].tokens;
  ASSERT_EQ(sentence.steps.size(), chosen.size());
  int cross = -1;  // the decoder's attention over the source
  for (std::size_t i = 0; i < model->sites().size() && cross < 0; ++i)
    if (model->sites()[i].per_step && model->sites()[i].keys == Side::Source) cross = static_cast<int>(i);
  ASSERT_GE(cross, 0);
  for (std::size_t t = 0; t < chosen.size(); ++t) {
    const TokenAttribution& s = sentence.steps[t];
    EXPECT_EQ(s.token, chosen[t]);
    EXPECT_EQ(s.tokens.source, session.source().ids);
    ASSERT_EQ(s.tokens.target.size(), t + 1);
    EXPECT_EQ(s.tokens.target[0], model->config.special.bos);
    const Attribution direct =
        attribute(pass, {s.tokens, static_cast<int>(t), chosen[t]}, {}, model->config.special.pad);
    expect_near_all(all_scores(direct), all_scores(s.scores), "step " + std::to_string(t), 0.0);
    // τ of each head: its cross-attention row against |source scores|.
    const Tensor& attention = session_attention(session, cross, static_cast<int>(t), 0);
    ASSERT_EQ(s.agreement.site, model->sites()[cross].name);
    ASSERT_EQ(s.agreement.tau.size(), static_cast<std::size_t>(attention.shape[0] * attention.shape[1]));
    const int keys = attention.shape[2];
    std::vector<float> magnitude;
    for (float v : s.scores.source) magnitude.push_back(std::abs(v));
    for (int l = 0; l < attention.shape[0]; ++l)
      for (int h = 0; h < attention.shape[1]; ++h) {
        const float* row = attention.data.data() + attention.offset({l, h, 0});
        EXPECT_EQ(s.agreement.tau[l * attention.shape[1] + h],
                  kendall_tau_b(std::vector<float>(row, row + keys), magnitude));
      }
  }
  for (std::size_t k = 0; k < sentence.mean.tau.size(); ++k) {
    double sum = 0;
    int n = 0;
    for (const auto& s : sentence.steps)
      if (!std::isnan(s.agreement.tau[k])) sum += s.agreement.tau[k], ++n;
    if (n) {
      EXPECT_NEAR(sentence.mean.tau[k], sum / n, 1e-12);
    }
  }
  // Up to an earlier step: that prefix of the sentence.
  const SentenceAttribution two = sentence_attribution(session, pass, {}, 1, 0);
  ASSERT_EQ(two.steps.size(), 2u);
  for (std::size_t t = 0; t < 2; ++t) EXPECT_EQ(all_scores(two.steps[t].scores), all_scores(sentence.steps[t].scores));
  EXPECT_THROW(session_attribution(session, pass, static_cast<int>(chosen.size()), 0, {}), IndexError);
}

// The work of a session's requests: per step, (3·m + 2) forwards over the source, <bos> and the
// prefix; a sentence, the sum over its steps. Over budget at its last step, a sentence is refused
// before its first step runs.
TEST(AttributionSession, CostsCountEveryStepAndRefuseBeforeRunning) {
  const auto model = Model::load_file(testing::frozen_toy_path());
  DecodeOptions decoding;
  decoding.capture.attention = true;
  DecodeSession session(model, "i can eat apple", decoding);
  session.run();
  ClosedForm pass(std::max(model->src_vocab.size(), model->tgt_vocab.size()));
  AttributionOptions options;
  options.method = AttributionMethod::IntegratedGradients;
  options.steps = 64;
  ASSERT_GE(session.steps_taken(), 2);
  const double p = static_cast<double>(pass.parameter_count());
  const std::size_t source = session.source().ids.size();
  const int steps = session.steps_taken();
  double sentence = 0;
  for (int t = 0; t < steps; ++t) {
    const double forward = p * static_cast<double>(source + 1 + t);
    EXPECT_DOUBLE_EQ(session_attribution_cost(session, pass, t, 0, options).work, (3 * 64 + 2) * forward) << t;
    sentence += (3 * 64 + 2) * forward;
  }
  const AttributionCost all = sentence_attribution_cost(session, pass, options);
  EXPECT_DOUBLE_EQ(all.work, sentence);
  EXPECT_EQ(all.passes, static_cast<long long>(steps) * 66);
  EXPECT_EQ(sentence_attribution_cost(session, pass, options, 1).passes, 2 * 66);
  // Enough parameters that the last step (the longest input) allows fewer than 64 steps, the first more.
  const std::size_t longest = source + static_cast<std::size_t>(steps);
  pass.claimed_parameters = static_cast<std::size_t>(kAttributionBudget / (3 * 64 + 2) / (longest - 0.5));
  ASSERT_LT(max_ig_steps(pass.claimed_parameters, longest), 64);
  ASSERT_GE(max_ig_steps(pass.claimed_parameters, source + 1), 64);
  EXPECT_EQ(sentence_attribution_cost(session, pass, options).max_steps, max_ig_steps(pass.claimed_parameters, longest));
  pass.forwards = 0;
  const std::string message = testing::thrown_message<InputError>([&] { sentence_attribution(session, pass, options); });
  EXPECT_NE(message.find("over " + std::to_string(longest) + " tokens"), std::string::npos) << message;
  EXPECT_NE(message.find("use at most " + std::to_string(max_ig_steps(pass.claimed_parameters, longest)) + " steps"),
            std::string::npos) << message;
  EXPECT_EQ(pass.forwards, 0);
  EXPECT_NO_THROW(session_attribution(session, pass, 0, 0, options));
}

std::unique_ptr<train::Differentiable> pass_of(const std::string& golden_relative) {
  std::ifstream in(testing::golden_path(golden_relative), std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + golden_relative);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return train::differentiable_from_bytes(bytes.data(), bytes.size());
}

AttributionOptions options_of(const testing::json& c) {
  AttributionOptions o;
  o.method = parse_attribution_method(c.at("method"));
  o.steps = c.at("steps");
  o.baseline = parse_attribution_baseline(c.at("baseline"));
  o.contrast = c.at("contrast");
  return o;
}

// The families whose pass exists; every case of their golden file, within 1e-4.
class AttributionGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(AttributionGolden, MatchesTorchAutograd) {
  const testing::json g = testing::load_json(testing::golden_path(std::string("attribution/") + GetParam() + ".json"));
  const auto pass = pass_of(g.at("model"));
  for (std::size_t i = 0; i < g.at("cases").size(); ++i) {
    const testing::json& c = g["cases"][i];
    const std::string what = std::string(GetParam()) + " case " + std::to_string(i) + " (" +
                             c.at("method").get<std::string>() + ")";
    const AttributionTarget target{{c.at("source"), c.at("target")}, c.at("row"), c.at("token")};
    const Attribution a = attribute(*pass, target, options_of(c), g.at("pad"));
    testing::expect_close(c.at("source_scores"), a.source.data(), a.source.size(), {static_cast<int>(a.source.size())},
                          what + " source");
    testing::expect_close(c.at("target_scores"), a.target.data(), a.target.size(), {static_cast<int>(a.target.size())},
                          what + " target");
    EXPECT_NEAR(a.f, c.at("f").get<double>(), 1e-4) << what;
    EXPECT_NEAR(a.sum, c.at("sum").get<double>(), 1e-4) << what;
    if (c.contains("f_baseline")) {
      EXPECT_NEAR(a.f_baseline, c.at("f_baseline").get<double>(), 1e-4) << what;
      EXPECT_NEAR(a.completeness_error, c.at("completeness_error").get<double>(), 1e-4) << what;
      // A share of |f − f_baseline|: the error's tolerance scaled by it.
      const double change = std::abs(c.at("f").get<double>() - c.at("f_baseline").get<double>());
      EXPECT_NEAR(a.completeness_share, c.at("completeness_share").get<double>(), 1e-4 * (1 + 1 / change)) << what;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Families, AttributionGolden,
                         ::testing::Values("tiny_post_sin", "small_pre_learned", "pre_learned_gelu_tanh",
                                           "post_sin_relu_untied", "gru_bahdanau_additive", "lstm_luong_dot_feed_local",
                                           "small_mlm"));

// The cost's P: every family's pass counts the tensors of its model file, element by element.
TEST(AttributionCost, EachFamilysPassCountsItsFilesParameters) {
  for (const char* name : {"tiny_post_sin", "pre_learned_gelu_tanh", "gru_bahdanau_additive", "small_mlm"}) {
    const testing::json g = testing::load_json(testing::golden_path(std::string("attribution/") + name + ".json"));
    std::ifstream in(testing::golden_path(g.at("model")), std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const SafetensorsFile file(bytes.data(), bytes.size());
    std::size_t elements = 0;
    for (const auto& [tensor, info] : file.tensors()) elements += info.numel();
    EXPECT_EQ(pass_of(g.at("model"))->parameter_count(), elements) << name;
  }
}

// Completeness on the engine's own passes: smooth models (GELU, pre-norm) converge as the midpoint
// rule does (1/m²); a ReLU's kinks slow that down and need not shrink monotonically
// (tiny_post_sin), so they are left out here.
TEST(AttributionCompleteness, ErrorShrinksWithStepsOnTheEnginesPasses) {
  for (const char* name : {"small_pre_learned", "pre_learned_gelu_tanh", "small_mlm"}) {
    const testing::json g = testing::load_json(testing::golden_path(std::string("attribution/") + name + ".json"));
    const auto pass = pass_of(g.at("model"));
    const testing::json& c = g["cases"][0];
    const AttributionTarget target{{c.at("source"), c.at("target")}, c.at("row"), c.at("token")};
    AttributionOptions o;
    o.method = AttributionMethod::IntegratedGradients;
    double previous = INFINITY;
    for (int steps : {8, 32, 128}) {
      o.steps = steps;
      const double error = attribute(*pass, target, o, g.at("pad")).completeness_error;
      EXPECT_LT(error, previous) << name << ", " << steps << " steps";
      previous = error;
    }
    o.steps = 64;
    EXPECT_LT(attribute(*pass, target, o, g.at("pad")).completeness_error, 1e-3) << name << " at 64 steps";
  }
}

// Past kCompletenessShare the result names more steps; on a smooth model (GELU, pre-norm: the
// midpoint rule's error falls as 1/m² there, as above) those steps bring the share within it.
TEST(AttributionCompleteness, OverTheThresholdTheSuggestedStepsMeetIt) {
  const testing::json g = testing::load_json(testing::golden_path("attribution/small_pre_learned.json"));
  const auto pass = pass_of(g.at("model"));
  const testing::json& c = g["cases"][0];
  const AttributionTarget target{{c.at("source"), c.at("target")}, c.at("row"), c.at("token")};
  AttributionOptions options;
  options.method = AttributionMethod::IntegratedGradients;
  options.steps = 1;
  const Attribution coarse = attribute(*pass, target, options, g.at("pad"));
  ASSERT_GT(coarse.completeness_share, kCompletenessShare) << "the case must start over the threshold";
  ASSERT_GT(coarse.suggested_steps, options.steps);
  options.steps = coarse.suggested_steps;
  const Attribution fine = attribute(*pass, target, options, g.at("pad"));
  EXPECT_LE(fine.completeness_share, kCompletenessShare) << coarse.suggested_steps << " steps";
  EXPECT_EQ(fine.suggested_steps, 0);
}

}  // namespace
}  // namespace attnscope
