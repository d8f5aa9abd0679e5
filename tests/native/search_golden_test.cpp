// Beam search and sampling against the Python reference (models/reference/attnscope_ref/search.py,
// goldens from models/goldens/make_search_goldens.py): n-best lists, scores, and the beam after every step.
#include <gtest/gtest.h>

#include "decoding/session.h"
#include "test_support.h"

namespace attnscope {
namespace {

using testing::json;

constexpr double kScoreTolerance = 1e-4;

std::shared_ptr<const Model> load_relative(const std::string& path) {
  static std::map<std::string, std::shared_ptr<const Model>> cache;
  auto& m = cache[path];
  if (!m) m = Model::load_file(std::string(ATTNSCOPE_GOLDEN_DIR) + "/../../" + path);
  return m;
}

// The repetition rules, present only in the cases that use them.
int read_repetition_rules(const json& o, DecodeOptions& options) {
  options.no_repeat_ngram_size = o.value("no_repeat_ngram_size", 0);
  options.repetition_penalty = o.value("repetition_penalty", 1.0);
  return o.contains("no_repeat_ngram_size") || o.contains("repetition_penalty");
}

Source source_of(const Model& model, const json& c) {
  Source s = prepare_source(model, c["source"]);
  EXPECT_EQ(s.ids, c["src_ids"].get<std::vector<int>>());
  return s;
}

TEST(SearchGolden, BeamSearchMatchesPythonReference) {
  const json golden = testing::load_json(testing::golden_path("beam.json"));
  int index = 0, greedy_cases = 0, rule_cases = 0;
  for (const json& c : golden["cases"]) {
    SCOPED_TRACE("beam case " + std::to_string(index++) + ": " + c["source"].get<std::string>() + " (" +
                 c["model"].get<std::string>() + ", " + c["options"].dump() + ")");
    const auto model = load_relative(c["model"]);
    const json& o = c["options"];
    DecodeOptions options;
    options.strategy = Strategy::Beam;
    options.beam_size = o["beam_size"];
    options.nbest = o["nbest"];
    options.length_penalty = parse_length_penalty(o["length_penalty"]);
    options.alpha = o["alpha"];
    options.max_length = o["max_length"];
    options.max_length_a = o["max_length_a"];
    options.max_length_b = o["max_length_b"];
    options.min_length = o["min_length"];
    rule_cases += read_repetition_rules(o, options);
    DecodeSession session(model, source_of(*model, c), options);
    EXPECT_EQ(session.max_length(), c["limit"].get<int>());

    for (const json& expected : c["steps"]) {
      ASSERT_FALSE(session.done()) << "engine stopped early, at step " << session.steps_taken();
      session.step();
      const auto live = session.live();
      ASSERT_EQ(live.size(), expected["live"].size()) << "live beam after step " << session.steps_taken();
      for (std::size_t i = 0; i < live.size(); ++i) {
        EXPECT_EQ(live[i].tokens, expected["live"][i]["tokens"].get<std::vector<int>>());
        EXPECT_NEAR(live[i].score, expected["live"][i]["score"].get<double>(), kScoreTolerance);
      }
      ASSERT_EQ(session.finished().size(), expected["finished"].size());
      for (std::size_t i = 0; i < session.finished().size(); ++i) {
        const FinishedHypothesis& f = session.finished()[i];
        EXPECT_EQ(f.tokens, expected["finished"][i]["tokens"].get<std::vector<int>>());
        EXPECT_NEAR(f.normalized_score, expected["finished"][i]["normalized_score"].get<double>(), kScoreTolerance);
      }
    }
    EXPECT_TRUE(session.done()) << "reference stopped after " << c["steps"].size() << " steps";
    EXPECT_EQ(session.hit_max_length(), c["hit_max_length"].get<bool>());

    const auto nbest = session.nbest();
    ASSERT_EQ(nbest.size(), c["nbest"].size());
    for (std::size_t i = 0; i < nbest.size(); ++i) {
      const json& want = c["nbest"][i];
      EXPECT_EQ(nbest[i].tokens, want["tokens"].get<std::vector<int>>()) << "n-best " << i;
      EXPECT_NEAR(nbest[i].score, want["score"].get<double>(), kScoreTolerance) << "n-best " << i;
      EXPECT_NEAR(nbest[i].normalized_score, want["normalized_score"].get<double>(), kScoreTolerance);
      EXPECT_EQ(nbest[i].finished, want["finished"].get<bool>());
    }

    // Width 1 without a length penalty is greedy: the greedy chooser must agree.
    if (options.beam_size == 1 && options.length_penalty == LengthPenalty::None) {
      options.strategy = Strategy::Greedy;
      DecodeSession greedy(model, source_of(*model, c), options);
      greedy.run();
      const FinishedHypothesis best = greedy.nbest().at(0);
      EXPECT_EQ(best.tokens, c["nbest"][0]["tokens"].get<std::vector<int>>()) << "greedy";
      EXPECT_NEAR(best.score, c["nbest"][0]["score"].get<double>(), kScoreTolerance) << "greedy";
      EXPECT_EQ(greedy.hit_max_length(), c["hit_max_length"].get<bool>()) << "greedy";
      ++greedy_cases;
    }
  }
  EXPECT_GE(greedy_cases, 9);  // the width-1 cases of beam.json, with and without the rules
  EXPECT_GE(rule_cases, 12);   // the cases with no_repeat_ngram_size or repetition_penalty
}

TEST(SearchGolden, SamplingMatchesPythonReference) {
  const json golden = testing::load_json(testing::golden_path("sample.json"));
  int index = 0, rule_cases = 0;
  for (const json& c : golden["cases"]) {
    SCOPED_TRACE("sample case " + std::to_string(index++) + ": " + c["options"].dump());
    const auto model = load_relative(c["model"]);
    const json& o = c["options"];
    DecodeOptions options;
    options.strategy = Strategy::Sample;
    options.temperature = o["temperature"];
    options.top_k = o["top_k"];
    options.top_p = o["top_p"];
    options.seed = o["seed"];
    options.max_length = o["max_length"];
    options.min_length = o["min_length"];
    rule_cases += read_repetition_rules(o, options);
    DecodeSession session(model, source_of(*model, c), options);
    session.run();
    const FinishedHypothesis best = session.nbest().at(0);
    EXPECT_EQ(best.tokens, c["tokens"].get<std::vector<int>>());
    EXPECT_NEAR(best.score, c["score"].get<double>(), kScoreTolerance);
    EXPECT_EQ(best.finished, c["finished"].get<bool>());
    EXPECT_EQ(session.hit_max_length(), c["hit_max_length"].get<bool>());
  }
  EXPECT_GE(rule_cases, 7);  // the cases with no_repeat_ngram_size or repetition_penalty
}

}  // namespace
}  // namespace attnscope
