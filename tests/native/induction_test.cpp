// The induction scores (src/analysis/induction.h): on constructions whose score is known exactly,
// and on the decoder-only goldens' models against gpt.py's full forward and numpy's eigenvalues
// (tests/golden/induction/scores.json, written by models/goldens/make_induction_goldens.py); then
// the repeated-sequence data they are measured on (src/train/repeated_sequences.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/induction.h"
#include "test_support.h"
#include "train/repeated_sequences.h"

namespace attnscope {
namespace {

using testing::json;

// <bos> = 2, then a b c a b c.
const std::vector<int> kContext = {2, 7, 8, 9, 7, 8, 9};
constexpr int kFirstRepeat = 4;

TEST(PrefixMatching, AHeadOnThePrefixMatchScoresOne) {
  Matrix map = Matrix::Zero(7, 7);
  for (int q = 0; q < 7; ++q) map(q, 0) = 1.0f;  // every row sums to 1
  for (int q = kFirstRepeat; q < 7; ++q) map(q, 0) = 0.0f, map(q, q - 2) = 1.0f;  // the token after q's earlier copy
  EXPECT_DOUBLE_EQ(prefix_matching_score(map, kContext, kFirstRepeat), 1.0);
}

TEST(PrefixMatching, APreviousTokenHeadScoresZero) {
  Matrix map = Matrix::Zero(7, 7);
  map(0, 0) = 1.0f;
  for (int q = 1; q < 7; ++q) map(q, q - 1) = 1.0f;
  EXPECT_DOUBLE_EQ(prefix_matching_score(map, kContext, kFirstRepeat), 0.0);
}

TEST(PrefixMatching, AUniformHeadScoresTheShareOfItsOneMatchingKey) {
  Matrix map = Matrix::Zero(7, 7);
  for (int q = 0; q < 7; ++q) map.row(q).head(q + 1).setConstant(1.0f / static_cast<float>(q + 1));
  // Queries 4, 5, 6 each have one matching key (2, 3, 4) among 5, 6, 7 keys.
  EXPECT_NEAR(prefix_matching_score(map, kContext, kFirstRepeat), (1.0 / 5 + 1.0 / 6 + 1.0 / 7) / 3, 1e-7);
}

TEST(PrefixMatching, RefusesAMapThatDoesNotFitTheContext) {
  EXPECT_THROW(prefix_matching_score(Matrix::Zero(6, 6), kContext, kFirstRepeat), InputError);
  EXPECT_THROW(prefix_matching_score(Matrix::Zero(7, 7), kContext, 0), InputError);
}

TEST(PreviousToken, ScoresTheShareOfAttentionOnTheTokenBefore) {
  Matrix previous = Matrix::Zero(5, 5);
  previous(0, 0) = 1.0f;
  for (int q = 1; q < 5; ++q) previous(q, q - 1) = 1.0f;
  EXPECT_DOUBLE_EQ(previous_token_score(previous), 1.0);
  Matrix self = Matrix::Identity(5, 5);  // every query on itself
  EXPECT_DOUBLE_EQ(previous_token_score(self), 0.0);
  Matrix uniform = Matrix::Zero(5, 5);
  for (int q = 0; q < 5; ++q) uniform.row(q).head(q + 1).setConstant(1.0f / static_cast<float>(q + 1));
  EXPECT_NEAR(previous_token_score(uniform), (1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5) / 4, 1e-7);
  EXPECT_THROW(previous_token_score(Matrix::Zero(1, 1)), InputError);
  EXPECT_THROW(previous_token_score(Matrix::Zero(4, 5)), InputError);
}

TEST(CopyingScore, KnownEigenvalues) {
  EXPECT_DOUBLE_EQ(eigenvalue_copying_score(2.0f * Matrix::Identity(4, 4)), 1.0);  // copies every token
  EXPECT_DOUBLE_EQ(eigenvalue_copying_score(-Matrix::Identity(3, 3)), -1.0);      // suppresses every token
  Matrix rotation(2, 2);
  rotation << 0, -1, 1, 0;  // eigenvalues ±i
  EXPECT_NEAR(eigenvalue_copying_score(rotation), 0.0, 1e-12);
  Matrix mixed(2, 2);
  mixed << 3, 5, 0, -1;  // triangular: eigenvalues 3 and -1
  EXPECT_NEAR(eigenvalue_copying_score(mixed), (3.0 - 1.0) / (3.0 + 1.0), 1e-12);
  EXPECT_DOUBLE_EQ(eigenvalue_copying_score(Matrix::Zero(3, 3)), 0.0);
  EXPECT_THROW(eigenvalue_copying_score(Matrix::Zero(2, 3)), InputError);
}

void expect_scores_close(const json& want, const std::vector<std::vector<double>>& got, const std::string& what) {
  std::vector<float> flat;
  for (const auto& row : got) flat.insert(flat.end(), row.begin(), row.end());
  testing::expect_close(want, flat.data(), flat.size(), {static_cast<int>(got.size()), static_cast<int>(got[0].size())},
                        what);
}

TEST(InductionScores, MatchTheReferenceOnTheDecoderOnlyGoldens) {
  const json golden = testing::load_json(testing::golden_path("induction/scores.json"));
  const auto probes = golden["probes"].get<std::vector<std::vector<int>>>();
  const auto tokens = golden["tokens"].get<std::vector<int>>();
  ASSERT_EQ(golden["models"].size(), 3u);
  for (const auto& [name, want] : golden["models"].items()) {
    const auto model = Model::load_file(testing::golden_path("decoder_only/" + name + ".safetensors"));
    const InductionScores s = induction_scores(*model, probes, tokens);
    expect_scores_close(want["prefix_matching"], s.prefix_matching, name + " prefix matching");
    expect_scores_close(want["previous_token"], s.previous_token, name + " previous token");
    expect_scores_close(want["copying"], s.copying, name + " copying");
    const float losses[] = {static_cast<float>(s.loss_first_half), static_cast<float>(s.loss_repeated_half)};
    testing::expect_close(json::array({want["loss_first_half"], want["loss_repeated_half"]}), losses, 2, {2},
                          name + " losses");
    testing::expect_close(want["attention"], s.attention.data.data(), s.attention.data.size(), s.attention.shape,
                          name + " attention");
    std::vector<int> context = {model->config.special.bos};
    context.insert(context.end(), probes[0].begin(), probes[0].end());
    EXPECT_EQ(s.context, context) << name;
  }
}

TEST(InductionScores, RefuseWhatTheyCannotScore) {
  const auto lm = Model::load_file(testing::golden_path("decoder_only/attention_only_gelu.safetensors"));
  const std::vector<int> tokens = {4, 5, 6};
  EXPECT_THROW(induction_scores(*lm, {{4, 5, 6, 4, 5, 7}}, tokens), InputError);  // not a repeat
  EXPECT_THROW(induction_scores(*lm, {{4, 5, 4}}, tokens), InputError);           // odd length
  EXPECT_THROW(induction_scores(*lm, {{4, 5, 6, 7, 8, 9, 4, 5, 6, 7, 8, 9}}, tokens), InputError);  // 13 > 12 positions
  EXPECT_THROW(induction_scores(*lm, {{4, 5, 4, 5}}, {4, 99}), InputError);       // outside the vocabulary
  EXPECT_THROW(induction_scores(*lm, {{4, 99, 4, 99}}, tokens), InputError);      // outside the vocabulary
  EXPECT_THROW(induction_scores(*lm, {}, tokens), InputError);
  const auto translation = Model::load_file(testing::frozen_toy_path());
  EXPECT_THROW(induction_scores(*translation, {{4, 5, 4, 5}}, tokens), InputError);
}

TEST(RepeatedSequences, EachPairIsOneHalfTwiceWithUniformSymbols) {
  train::RepeatedSequencesOptions o;
  o.half_length = 8, o.symbols = 12, o.sequences = 300, o.seed = 5;
  const train::RepeatedSequences data = train::repeated_sequences(o, 3);
  ASSERT_EQ(data.symbols.size(), 12u);
  ASSERT_EQ(data.pairs.size(), 300u);
  std::map<std::string, int> counts;
  auto words_of = [](const std::string& text) {
    std::vector<std::string> words;
    for (std::size_t start = 0; start <= text.size();) {
      std::size_t end = text.find(' ', start);
      if (end == std::string::npos) end = text.size();
      words.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    return words;
  };
  // A decoder-only model learns a pair as <bos> source target </s>: the half, then the half again.
  for (const train::TrainPair& pair : data.pairs) {
    EXPECT_EQ(pair.source, pair.target);
    const auto words = words_of(pair.source);
    ASSERT_EQ(words.size(), 8u) << pair.source;
    for (const std::string& w : words) ++counts[w];
  }
  // 2400 uniform draws over 12 symbols: 200 each expected, sd ~13.
  ASSERT_EQ(counts.size(), 12u);
  for (const auto& [symbol, n] : counts) EXPECT_TRUE(n > 140 && n < 260) << symbol << " drawn " << n << " times";
  ASSERT_EQ(data.probes.size(), 3u);
  for (const std::string& probe : data.probes) {
    const auto words = words_of(probe);
    ASSERT_EQ(words.size(), 16u);
    EXPECT_EQ(std::set<std::string>(words.begin(), words.begin() + 8).size(), 8u) << probe;  // distinct
    EXPECT_TRUE(std::equal(words.begin(), words.begin() + 8, words.begin() + 8)) << probe;
  }
  // A seed gives one corpus; the probes do not depend on it.
  auto sources = [](const train::RepeatedSequences& r) {
    std::vector<std::string> out;
    for (const train::TrainPair& p : r.pairs) out.push_back(p.source);
    return out;
  };
  EXPECT_EQ(sources(train::repeated_sequences(o, 3)), sources(data));
  o.seed = 6;
  const auto other = train::repeated_sequences(o, 3);
  EXPECT_NE(sources(other), sources(data));
  EXPECT_EQ(other.probes, data.probes);
}

TEST(RepeatedSequences, APrefixOfUnrepeatedSymbolsComesBeforeTheHalf) {
  train::RepeatedSequencesOptions o;
  o.half_length = 6, o.min_half_length = 3, o.max_prefix = 5, o.symbols = 10, o.sequences = 400;
  std::set<std::size_t> prefixes, halves;
  for (const train::TrainPair& pair : train::repeated_sequences(o).pairs) {
    // The source ends with the target: " " and the half, after the prefix.
    ASSERT_GE(pair.source.size(), pair.target.size());
    EXPECT_EQ(pair.source.substr(pair.source.size() - pair.target.size()), pair.target);
    const auto count = [](const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), ' ')) + 1; };
    const std::size_t half = count(pair.target), prefix = count(pair.source) - half;
    halves.insert(half);
    prefixes.insert(prefix);
  }
  EXPECT_EQ(halves, (std::set<std::size_t>{3, 4, 5, 6}));
  EXPECT_EQ(prefixes, (std::set<std::size_t>{0, 1, 2, 3, 4, 5}));
}

TEST(RepeatedSequences, RefuseOptionsOutsideTheLimits) {
  auto with = [](int half, int symbols, int sequences) {
    train::RepeatedSequencesOptions o;
    o.half_length = half, o.symbols = symbols, o.sequences = sequences;
    return o;
  };
  EXPECT_THROW(train::repeated_sequences(with(1, 10, 10)), InputError);
  EXPECT_THROW(train::repeated_sequences(with(11, 10, 10)), InputError);  // probes need distinct symbols
  EXPECT_THROW(train::repeated_sequences(with(200, 1000, 10)), InputError);  // 400 tokens
  EXPECT_THROW(train::repeated_sequences(with(5, 1, 10)), InputError);
  EXPECT_THROW(train::repeated_sequences(with(5, 10, 0)), InputError);
  EXPECT_THROW(train::repeated_sequences(with(5, 10, 10), 0), InputError);
  auto prefixed = with(5, 10, 10);
  prefixed.max_prefix = 250;  // 260 tokens
  EXPECT_THROW(train::repeated_sequences(prefixed), InputError);
  prefixed.max_prefix = 0, prefixed.min_half_length = 6;  // more than the half length
  EXPECT_THROW(train::repeated_sequences(prefixed), InputError);
}

}  // namespace
}  // namespace attnscope
