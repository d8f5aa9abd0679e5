// The engine against the PyTorch reference (models/reference/attnscope_ref, goldens from
// models/goldens/make_goldens.py): every logit, attention weight and named vector of a greedy decode.
#include <gtest/gtest.h>

#include "decoding/session.h"
#include "families/transformer/transformer.h"
#include "test_support.h"

namespace attnscope {
using transformer::kCross;
using transformer::kDecoderSelf;
using transformer::kEncoderSelf;
namespace {

using testing::expect_close;
using testing::json;

std::vector<int> dims(const Matrix& m) { return {static_cast<int>(m.rows()), static_cast<int>(m.cols())}; }

class GoldenTest : public ::testing::TestWithParam<std::string> {};

// A vector golden may be [d] (one decoder position) or [S][d]; the engine always has rows.
void expect_vector(const json& expected, const Matrix& actual, const std::string& what) {
  std::vector<int> shape = dims(actual);
  if (!expected.empty() && expected[0].is_number()) shape = {static_cast<int>(actual.cols())};
  expect_close(expected, actual.data(), actual.size(), shape, what);
}

void expect_vectors(const json& expected, const NamedVectors& actual, const std::string& where) {
  auto check = [&](const std::string& name, const json& want) {
    auto it = actual.find(name);
    ASSERT_NE(it, actual.end()) << where << ": engine did not record '" << name << "'";
    expect_vector(want, it->second, where + " " + name);
  };
  for (const char* top : {"embedding", "positional", "output"})
    if (expected.contains(top)) check(top, expected[top]);
  for (std::size_t i = 0; i < expected["layers"].size(); ++i)
    for (const auto& [name, want] : expected["layers"][i].items())
      check("layers." + std::to_string(i) + "." + name, want);
}

TEST_P(GoldenTest, GreedyDecodeMatchesPyTorchReference) {
  const json golden = testing::load_json(testing::golden_path(GetParam() + ".json"));
  const auto model = Model::load_file(testing::golden_path(golden["model"].get<std::string>()));

  for (const json& c : golden["cases"]) {
    const std::string source = c["source"];
    SCOPED_TRACE("source: " + source);

    const Source src = prepare_source(*model, source);
    EXPECT_EQ(src.pieces, c["src_tokens"].get<std::vector<std::string>>());
    EXPECT_EQ(src.ids, c["src_ids"].get<std::vector<int>>());
    EXPECT_EQ(src.unknown, c["unknown_words"].get<std::vector<std::string>>());

    DecodeOptions options;
    options.max_length = c["max_steps"];
    options.capture = {true, true, true};
    DecodeSession session(model, src, options);
    session.run();
    const std::vector<int> output_ids = session.nbest().at(0).tokens;
    const auto& history = session.history();

    const int S = static_cast<int>(src.ids.size());
    const transformer::Config& config = transformer::of(*model).config();
    const int L_enc = config.n_encoder_layers, L_dec = config.n_decoder_layers;
    const int H = config.n_heads;
    const EncoderTrace& enc = session.encoder_trace();
    expect_close(c["encoder"]["self_attn"], enc.attention[kEncoderSelf].data.data(), enc.attention[kEncoderSelf].numel(), {L_enc, H, S, S},
                 "encoder self_attn");
    ASSERT_EQ(enc.attention[kEncoderSelf].shape, (std::vector<int>{L_enc, H, S, S}));
    expect_vectors(c["encoder"], enc.vectors, "encoder");

    ASSERT_EQ(output_ids, c["output_ids"].get<std::vector<int>>()) << "greedy output differs";
    EXPECT_EQ(session.detokenize(output_ids), c["output_text"].get<std::string>());
    EXPECT_EQ(session.nbest()[0].finished, output_ids.back() == model->config.special.eos);
    ASSERT_EQ(history.size(), c["steps"].size());
    for (std::size_t i = 0; i < history.size(); ++i) {
      ASSERT_EQ(history[i].expansions.size(), 1u);
      const Expansion& s = history[i].expansions[0];
      const json& g = c["steps"][i];
      const std::string at = "step " + std::to_string(i);
      const int V = static_cast<int>(s.logits.size());
      const int fed = s.prefix.empty() ? model->config.special.bos : s.prefix.back();
      EXPECT_EQ(fed, g["input_id"].get<int>()) << at;
      EXPECT_EQ(output_ids[i], g["output_id"].get<int>()) << at;
      EXPECT_EQ(s.top.at(0).token, g["output_id"].get<int>()) << at;
      expect_close(g["logits"], s.logits.data(), s.logits.size(), {V}, at + " logits");
      expect_close(g["log_probs"], s.log_probs.data(), s.log_probs.size(), {V}, at + " log_probs");
      expect_close(g["self_attn"], s.trace.attention[kDecoderSelf].data.data(), s.trace.attention[kDecoderSelf].numel(),
                   {L_dec, H, static_cast<int>(i) + 1}, at + " self_attn");
      expect_close(g["cross_attn"], s.trace.attention[kCross].data.data(), s.trace.attention[kCross].numel(), {L_dec, H, S},
                   at + " cross_attn");
      expect_vectors(g, s.trace.vectors, at);
    }
  }
  std::printf("[ golden ] %s: max abs difference so far %.3g\n", GetParam().c_str(),
              testing::max_abs_diff_seen());
}

TEST_P(GoldenTest, CaptureOffGivesSameTranslationAndRecordsNothing) {
  const json golden = testing::load_json(testing::golden_path(GetParam() + ".json"));
  const auto model = Model::load_file(testing::golden_path(golden["model"].get<std::string>()));
  for (const json& c : golden["cases"]) {
    DecodeOptions options;
    options.max_length = c["max_steps"];
    DecodeSession session(model, c["source"].get<std::string>(), options);
    session.run();
    EXPECT_EQ(session.nbest().at(0).tokens, c["output_ids"].get<std::vector<int>>());
    EXPECT_TRUE(session.encoder_trace().attention.empty());
    EXPECT_TRUE(session.encoder_trace().vectors.empty());
    for (const StepRecord& r : session.history()) {
      const Expansion& s = r.expansions.at(0);
      EXPECT_TRUE(s.logits.empty());
      EXPECT_TRUE(s.trace.attention.empty());
      EXPECT_TRUE(s.trace.vectors.empty());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, GoldenTest,
                         ::testing::Values("tiny_post_sin", "small_pre_learned", "deep_post_learned_f16",
                                           "deep_pre_sin_bpe"));

}  // namespace
}  // namespace attnscope
