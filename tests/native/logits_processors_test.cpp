// The decoding rules (src/decoding/logits_processors.h, processors/): each rule alone on hand-made
// rows, the list's stage and ban rules, and what a session does with them beyond the Python
// goldens: greedy = beam 1, back() then step(), raw reported logits, forced tokens, bad values.
#include <gtest/gtest.h>

#include <cmath>

#include "decoding/logits_processors.h"
#include "decoding/processors/no_repeat_ngram.h"
#include "decoding/processors/repetition_penalty.h"
#include "decoding/session.h"
#include "test_support.h"

namespace attnscope {
namespace {

std::vector<int> bans(const LogitsProcessor& rule, const std::vector<int>& tokens, int vocab = 10) {
  std::vector<int> banned;
  rule.ban(tokens, vocab, banned);
  std::sort(banned.begin(), banned.end());
  banned.erase(std::unique(banned.begin(), banned.end()), banned.end());
  return banned;
}

TEST(LogitsProcessors, NoRepeatNGramBansTheTokensThatWouldRepeatAnNGram) {
  const std::vector<int> g = {1, 2, 3, 1, 2};
  EXPECT_EQ(bans(NoRepeatNGram(1), g), (std::vector<int>{1, 2, 3}));  // every token seen
  EXPECT_EQ(bans(NoRepeatNGram(2), g), (std::vector<int>{3}));        // after 2 came 3
  EXPECT_EQ(bans(NoRepeatNGram(3), g), (std::vector<int>{3}));        // after 1 2 came 3
  EXPECT_EQ(bans(NoRepeatNGram(4), g), (std::vector<int>{}));         // 3 1 2 never seen before
  EXPECT_EQ(bans(NoRepeatNGram(2), {4, 5, 4, 6, 4}), (std::vector<int>{5, 6}));
  EXPECT_EQ(bans(NoRepeatNGram(3), {}), (std::vector<int>{}));
  EXPECT_EQ(bans(NoRepeatNGram(2), {7}), (std::vector<int>{}));
  EXPECT_EQ(bans(NoRepeatNGram(6), g), (std::vector<int>{}));  // longer than the hypothesis
}

TEST(LogitsProcessors, RepetitionPenaltyDividesPositiveAndMultipliesNegativeLogitsOnce) {
  std::vector<float> logits = {2.0f, -2.0f, 0.0f, 1.0f, 3.0f};
  RepetitionPenalty(2.0).reshape({0, 1, 2, 0, 0}, logits.data(), 5);  // token 0 three times: once
  EXPECT_EQ(logits, (std::vector<float>{1.0f, -4.0f, 0.0f, 1.0f, 3.0f}));
  std::vector<float> odd = {0.1f};
  RepetitionPenalty(3.0).reshape({0}, odd.data(), 1);
  EXPECT_EQ(odd[0], static_cast<float>(static_cast<double>(0.1f) / 3.0));  // in double, rounded once
}

TEST(LogitsProcessors, OptionsBuildTheRulesInStageOrder) {
  DecodeOptions o;
  EXPECT_TRUE(make_logits_processors(o, 2).empty());  // the defaults change nothing
  o.strategy = Strategy::Sample;
  EXPECT_TRUE(make_logits_processors(o, 2).empty());  // temperature 1, no top-k / top-p
  o.temperature = 0.5;
  o.top_k = 3;
  o.top_p = 0.9;
  o.min_length = 2;
  o.no_repeat_ngram_size = 2;
  o.repetition_penalty = 1.5;
  o.prefix = {4};
  const LogitsProcessorList all = make_logits_processors(o, 2);
  EXPECT_EQ(all.size(), 7u);
  EXPECT_TRUE(all.reshapes());
  EXPECT_EQ(all.forced({}), 4);
  EXPECT_EQ(all.forced({4}), -1);
  o.strategy = Strategy::Beam;  // temperature, top-k and top-p are for sampling only
  EXPECT_EQ(make_logits_processors(o, 2).size(), 4u);
}

TEST(LogitsProcessors, ABanThatWouldLeaveNothingIsSkipped) {
  DecodeOptions o;
  o.min_length = 5;
  o.no_repeat_ngram_size = 1;
  const LogitsProcessorList rules = make_logits_processors(o, /*eos=*/1);
  EXPECT_EQ(rules.banned({0}, 3), (std::vector<int>{0, 1}));  // both rules
  EXPECT_EQ(rules.banned({0}, 2), (std::vector<int>{1}));     // no-repeat would ban the last token
  EXPECT_EQ(rules.banned({}, 1), (std::vector<int>{}));       // </s> alone cannot be banned
  EXPECT_EQ(rules.banned({0, 2}, 3), (std::vector<int>{1}));  // {0, 1, 2} is everything
}

TEST(LogitsProcessors, SamplingCandidatesExcludeBannedTokensAndFollowTheTruncationRules) {
  DecodeOptions o;
  o.strategy = Strategy::Sample;
  o.temperature = 2.0;
  o.top_k = 3;
  const LogitsProcessorList rules = make_logits_processors(o, 0);
  const std::vector<float> logits = {4.0f, 3.0f, 3.0f, 1.0f, 0.0f};
  const SamplingCandidates c = rules.sampling_candidates(logits.data(), 5, {1});
  EXPECT_EQ(c.kept, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(c.p[1], 0.0);
  double sum = 0.0;
  for (int i : {0, 2, 3, 4}) sum += std::exp((logits[i] - 4.0) / 2.0);
  EXPECT_DOUBLE_EQ(c.p[0], 1.0 / sum);
}

// ---------------------------------------------------------------------------------- sessions

std::shared_ptr<const Model> load(const std::string& name) {
  return Model::load_file(testing::golden_path(name + ".safetensors"));
}

DecodeOptions with_rules(Strategy strategy, int no_repeat, double penalty) {
  DecodeOptions o;
  o.strategy = strategy;
  o.beam_size = 1;
  o.max_length = 12;
  o.no_repeat_ngram_size = no_repeat;
  o.repetition_penalty = penalty;
  return o;
}

bool has_repeated_ngram(const std::vector<int>& g, int n) {
  for (std::size_t i = 0; i + n <= g.size(); ++i)
    for (std::size_t j = i + 1; j + n <= g.size(); ++j)
      if (std::equal(g.begin() + i, g.begin() + i + n, g.begin() + j)) return true;
  return false;
}

TEST(LogitsProcessors, GreedyEqualsBeamOfWidthOneUnderTheRules) {
  for (const char* name : {"tiny_post_sin", "small_pre_learned", "deep_pre_sin_bpe"}) {
    const auto model = load(name);
    for (const char* text : {"i can eat apple", "we want to drink beer", "A dog runs fast."}) {
      for (auto [n, theta] : {std::pair{2, 1.0}, std::pair{0, 1.7}, std::pair{1, 0.8}}) {
        DecodeSession g(model, text, with_rules(Strategy::Greedy, n, theta));
        DecodeSession b(model, text, with_rules(Strategy::Beam, n, theta));
        g.run();
        b.run();
        EXPECT_EQ(g.nbest()[0].tokens, b.nbest()[0].tokens) << name << ": " << text;
        EXPECT_EQ(g.nbest()[0].score, b.nbest()[0].score) << name << ": " << text;
        if (n > 0) EXPECT_FALSE(has_repeated_ngram(g.nbest()[0].tokens, n)) << name << ": " << text;
      }
    }
  }
}

TEST(LogitsProcessors, BackThenStepRepeatsUnderTheRules) {
  const auto model = load("small_pre_learned");
  for (Strategy strategy : {Strategy::Greedy, Strategy::Beam, Strategy::Sample}) {
    DecodeOptions o = with_rules(strategy, 2, 1.4);
    o.beam_size = strategy == Strategy::Beam ? 3 : 1;
    o.seed = 11;
    DecodeSession reference(model, "we want to drink beer", o);
    reference.run();
    DecodeSession s(model, "we want to drink beer", o);
    while (!s.done()) {
      s.step();
      if (s.done()) break;
      s.back();
      s.step();
    }
    ASSERT_EQ(s.nbest().size(), reference.nbest().size());
    for (std::size_t i = 0; i < s.nbest().size(); ++i) {
      EXPECT_EQ(s.nbest()[i].tokens, reference.nbest()[i].tokens) << to_string(strategy);
      EXPECT_EQ(s.nbest()[i].score, reference.nbest()[i].score) << to_string(strategy);
    }
  }
}

TEST(LogitsProcessors, ReportedLogitsAreTheModelsAndScoresUseThePenalisedDistribution) {
  const auto model = load("tiny_post_sin");
  DecodeOptions o = with_rules(Strategy::Greedy, 0, 3.0);
  o.capture.logits = true;
  DecodeSession penalised(model, "we can read book", o);
  penalised.run();
  const std::vector<int> tokens = penalised.nbest()[0].tokens;
  ASSERT_GE(tokens.size(), 2u);

  // The same tokens forced without rules: the model said the same, step by step.
  DecodeOptions plain;
  plain.capture.logits = true;
  plain.prefix = tokens;
  DecodeSession forced(model, "we can read book", plain);
  forced.run();
  ASSERT_EQ(forced.history().size(), penalised.history().size());
  double raw_score = 0.0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Expansion& a = penalised.history()[i].expansions.at(0);
    const Expansion& b = forced.history()[i].expansions.at(0);
    EXPECT_EQ(a.logits, b.logits) << "step " << i;
    EXPECT_EQ(a.log_probs, b.log_probs) << "step " << i;
    ASSERT_EQ(a.top.size(), b.top.size());
    for (std::size_t k = 0; k < a.top.size(); ++k) EXPECT_EQ(a.top[k].log_prob, b.top[k].log_prob);
    raw_score += forced.history()[i].forced_log_prob;
  }
  EXPECT_EQ(forced.nbest()[0].score, raw_score);
  // After the first token the penalty changes the normaliser, so the score differs from the raw one.
  EXPECT_GT(std::abs(penalised.nbest()[0].score - raw_score), 1e-4);
}

TEST(LogitsProcessors, AForcedTokenIsNeverBannedAndScoresTheModelsLogProb) {
  const auto model = load("tiny_post_sin");
  DecodeOptions o = with_rules(Strategy::Greedy, 1, 2.0);
  o.capture.logits = true;
  DecodeSession s(model, "i eat apple", o);
  s.step();
  ASSERT_FALSE(s.done());
  const int again = s.live().at(0).tokens.at(0);  // no-repeat 1 bans it now; force it anyway
  const StepRecord& r = s.force(again);
  const float raw = r.expansions.at(0).log_probs.at(again);
  EXPECT_EQ(r.forced_log_prob, raw);
  EXPECT_EQ(s.tree().back().token, again);
  EXPECT_EQ(s.tree().back().log_prob, raw);
}

TEST(LogitsProcessors, BadValuesAreInputErrorsNamingTheOption) {
  const auto model = load("tiny_post_sin");
  auto error = [&](DecodeOptions o) {
    try {
      DecodeSession(model, "i eat apple", o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  DecodeOptions o;
  o.no_repeat_ngram_size = -1;
  EXPECT_NE(error(o).find("no_repeat_ngram_size must be in [0, 1000] (0 = off), got -1"), std::string::npos) << error(o);
  for (double bad : {0.0, -1.5, 1e9, std::nan(""), HUGE_VAL}) {
    o = {};
    o.repetition_penalty = bad;
    EXPECT_NE(error(o).find("repetition_penalty must be in (0, 1000] (1 = off), got"), std::string::npos) << error(o);
  }
  o = {};
  o.repetition_penalty = -1.5;
  EXPECT_NE(error(o).find("got -1.5"), std::string::npos) << error(o);
}

}  // namespace
}  // namespace attnscope
