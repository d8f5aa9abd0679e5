// The RNN family against its PyTorch reference (models/reference/attnscope_ref/rnn.py; goldens from
// models/goldens/make_rnn_goldens.py in tests/golden/rnn/): every logit, log-probability, attention
// weight, energy, context and decoder state of a greedy decode, at <= 1e-4, NaN failing.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "decoding/session.h"
#include "families/rnn/rnn.h"
#include "test_support.h"

namespace attnscope {
namespace {

using testing::expect_close;
using testing::json;

std::vector<std::string> golden_names() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(testing::golden_path("rnn")))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

void expect_row(const json& expected, const NamedVectors& vectors, const std::string& name, const std::string& at) {
  auto it = vectors.find(name);
  ASSERT_NE(it, vectors.end()) << at << ": engine did not record '" << name << "'";
  expect_close(expected, it->second.data(), it->second.size(), {static_cast<int>(it->second.size())}, at + " " + name);
}

class RnnGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RnnGoldenTest, GreedyDecodeMatchesPyTorchReference) {
  const json golden = testing::load_json(testing::golden_path("rnn/" + GetParam() + ".json"));
  const auto model = Model::load_file(testing::golden_path("rnn/" + golden["model"].get<std::string>()));
  const bool attention = golden["config"]["attention"] != "none";
  ASSERT_EQ(model->sites().size(), attention ? 1u : 0u);
  for (const json& c : golden["cases"]) {
    SCOPED_TRACE("source: " + c["source"].get<std::string>());
    const Source src = prepare_source(*model, c["source"]);
    EXPECT_EQ(src.pieces, c["src_tokens"].get<std::vector<std::string>>());
    EXPECT_EQ(src.ids, c["src_ids"].get<std::vector<int>>());
    const int S = static_cast<int>(src.ids.size());

    DecodeOptions options;
    options.max_length = c["max_steps"];
    options.capture = {true, true, true};
    DecodeSession session(model, src, options);
    session.run();
    const std::vector<int> output_ids = session.nbest().at(0).tokens;
    ASSERT_EQ(output_ids, c["output_ids"].get<std::vector<int>>()) << "greedy output differs";
    EXPECT_EQ(session.detokenize(output_ids), c["output_text"].get<std::string>());

    const NamedVectors& enc = session.encoder_trace().vectors;
    ASSERT_TRUE(enc.count("states"));
    const Matrix& states = enc.at("states");
    expect_close(c["encoder_states"], states.data(), states.size(), {S, static_cast<int>(states.cols())},
                 "encoder states");
    expect_row(c["encoder_final"], enc, "final", "encoder");

    const auto& history = session.history();
    ASSERT_EQ(history.size(), c["steps"].size());
    for (std::size_t i = 0; i < history.size(); ++i) {
      ASSERT_EQ(history[i].expansions.size(), 1u);
      const Expansion& s = history[i].expansions[0];
      const json& g = c["steps"][i];
      const std::string at = "step " + std::to_string(i);
      const int V = static_cast<int>(s.logits.size());
      EXPECT_EQ(s.top.at(0).token, g["token"].get<int>()) << at;
      expect_close(g["logits"], s.logits.data(), s.logits.size(), {V}, at + " logits");
      expect_close(g["log_probs"], s.log_probs.data(), s.log_probs.size(), {V}, at + " log_probs");
      expect_row(g["hidden"], s.trace.vectors, "hidden", at);
      expect_row(g["context"], s.trace.vectors, "context", at);
      if (g.contains("attentional")) expect_row(g["attentional"], s.trace.vectors, "attentional", at);
      if (attention) {
        const Tensor& a = s.trace.attention.at(rnn::kAttention);
        expect_close(g["attention"], a.data.data(), a.numel(), {S}, at + " attention");
        ASSERT_EQ(a.shape, (std::vector<int>{1, 1, S}));
        expect_row(g["energies"], s.trace.vectors, "energies", at);
      } else {
        EXPECT_FALSE(g.contains("attention"));
        EXPECT_TRUE(s.trace.attention.empty());
      }
    }
  }
  std::printf("[ rnn golden ] %s: max abs difference so far %.3g\n", GetParam().c_str(),
              testing::max_abs_diff_seen());
}

INSTANTIATE_TEST_SUITE_P(Configs, RnnGoldenTest, ::testing::ValuesIn(golden_names()));

// Greedy decodes under the interventions that apply to an RNN, against the reference
// (tests/golden/rnn_interventions.json): attention patterns replace the weights (and the
// context with them); "mean" (copySourceEncoding) and "last" (lastSourceState) the context.
TEST(RnnGoldenInterventions, MatchPyTorchReference) {
  const json golden = testing::load_json(testing::golden_path("rnn_interventions.json"));
  ASSERT_GE(golden["cases"].size(), 14u);
  for (const json& c : golden["cases"]) {
    const std::string what = c["model"].get<std::string>() + " " + c["intervention"].get<std::string>();
    SCOPED_TRACE(what);
    const auto model = Model::load_file(testing::golden_path("rnn/" + c["model"].get<std::string>()));
    DecodeOptions options;
    options.max_length = c["max_steps"];
    options.capture = {true, true, true};
    const std::string iv = c["intervention"];
    if (iv == "mean") options.interventions.copy_source_encoding = true;
    else if (iv == "last") options.interventions.last_source_state = true;
    else options.interventions.attention.push_back({"cross", -1, -1, parse_attention_pattern(iv), {}});
    DecodeSession session(model, c["source"].get<std::string>(), options);
    session.run();
    ASSERT_EQ(session.nbest().at(0).tokens, c["output_ids"].get<std::vector<int>>());
    ASSERT_EQ(session.history().size(), c["steps"].size());
    for (std::size_t i = 0; i < c["steps"].size(); ++i) {
      const Expansion& s = session.history()[i].expansions.at(0);
      const json& g = c["steps"][i];
      const std::string at = what + " step " + std::to_string(i);
      expect_close(g["logits"], s.logits.data(), s.logits.size(), {static_cast<int>(s.logits.size())}, at + " logits");
      expect_row(g["context"], s.trace.vectors, "context", at);
      if (g.contains("attention")) {
        const Tensor& a = s.trace.attention.at(rnn::kAttention);
        expect_close(g["attention"], a.data.data(), a.numel(), {a.shape.back()}, at + " attention");
      }
    }
  }
}

// The goldens cover every cell x every score function (Luong's location score included) x both
// attention styles, Luong with and
// without input feeding, local-p, and the no-attention baseline for both cells.
TEST(RnnGoldenCoverage, EveryCellScoreAndStyle) {
  std::set<std::string> seen;
  for (const std::string& name : golden_names()) {
    const json config = testing::load_json(testing::golden_path("rnn/" + name + ".json"))["config"];
    const std::string cell = config["cell"], style = config["attention"], score = config["score"];
    seen.insert(cell + "/" + style + "/" + score);
    if (config["input_feeding"]) seen.insert("feed/" + style);
    if (style == "luong" && !config["input_feeding"]) seen.insert("nofeed/luong");
    if (config["local_window"].get<int>() > 0) seen.insert("local/" + style);
    if (config["bidirectional"]) seen.insert("bidirectional");
  }
  for (const char* cell : {"gru", "lstm"}) {
    for (const char* style : {"bahdanau", "luong"})
      for (const char* score : {"additive", "dot", "scaled_dot", "general", "cosine", "location"})
        EXPECT_TRUE(seen.count(std::string(cell) + "/" + style + "/" + score)) << cell << " " << style << " " << score;
    EXPECT_TRUE(seen.count(std::string(cell) + "/none/none")) << cell << " without attention";
  }
  for (const char* other : {"feed/luong", "nofeed/luong", "local/bahdanau", "local/luong", "bidirectional"})
    EXPECT_TRUE(seen.count(other)) << other;
}

}  // namespace
}  // namespace attnscope
