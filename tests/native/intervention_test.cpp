// Interventions (src/model/interventions.h): each changes the attention it claims to change,
// nothing upstream of it, and an empty set gives back the trained model exactly.
#include <gtest/gtest.h>

#include <map>

#include "decoding/options_json.h"
#include "decoding/session.h"
#include "model/seq2seq.h"
#include "test_support.h"
#include "families/transformer/transformer.h"

namespace attnscope {
using transformer::kCross;
using transformer::kDecoderSelf;
using transformer::kEncoderSelf;
namespace {

const std::string kToy = testing::frozen_toy_path();

std::shared_ptr<const Model> toy() {
  static auto model = Model::load_file(kToy);
  return model;
}

DecodeSession run(const std::shared_ptr<const Model>& model, const std::string& text, Interventions iv,
                  Strategy strategy = Strategy::Greedy) {
  DecodeOptions o;
  o.strategy = strategy;
  o.capture = {true, false, true};
  o.interventions = std::move(iv);
  DecodeSession s(model, text, o);
  s.run();
  return s;
}

std::string text_of(const DecodeSession& s) { return s.detokenize(s.nbest().at(0).tokens); }

Interventions cross(HeadEdit::Pattern p, std::vector<std::vector<float>> custom = {}) {
  Interventions iv;
  iv.attention.push_back({"cross", -1, -1, p, std::move(custom)});
  return iv;
}

// The seed article's table on the toy model: "i can eat apple" under each intervention. Every
// row is checked against tests/golden/interventions.json, written by
// models/goldens/make_intervention_goldens.py from the Python reading of the intervention rules
// (models/reference/attnscope_ref/interventions.py), not by this engine. (Its rows agree with the table
// recorded by hand when the rules were written.)
TEST(Interventions, SeedTableOnTheToyModel) {
  const auto model = toy();
  const testing::json golden = testing::load_json(testing::golden_path("interventions.json"));
  ASSERT_EQ(golden["model"], "tests/models/toy-en-de.frozen.safetensors");
  const std::string text = golden["source"];
  ASSERT_EQ(text, "i can eat apple");
  Interventions no_attention, only_decoder_self, no_ffn, no_layer_norm, masked, copy_source;
  no_attention.skip_cross_attention = true;
  only_decoder_self.skip_cross_attention = only_decoder_self.skip_encoder_self_attention = true;
  no_ffn.skip_ffn = true;
  no_layer_norm.skip_layer_norm = true;
  masked.masked_heads.push_back({"cross", 0, 0});
  copy_source.copy_source_encoding = true;
  Interventions layer_norm_only = only_decoder_self;  // every sub-layer skipped, LayerNorms kept
  layer_norm_only.skip_decoder_self_attention = layer_norm_only.skip_ffn = true;
  Interventions residual_only = layer_norm_only;  // ... and the LayerNorms too ("dropout only")
  residual_only.skip_layer_norm = true;
  const std::vector<std::pair<std::string, Interventions>> rows = {
      {"none", {}},
      {"uniform cross-attention", cross(HeadEdit::Pattern::Uniform)},
      {"cross-attention on the beginning", cross(HeadEdit::Pattern::Beginning)},
      {"cross-attention on the end", cross(HeadEdit::Pattern::End)},
      {"no attention (cross skipped)", no_attention},
      {"only decoder self-attention", only_decoder_self},
      {"FFN skipped", no_ffn},
      {"LayerNorm skipped", no_layer_norm},
      {"cross head 0 masked", masked},
      {"LayerNorm only", layer_norm_only},
      {"residual only", residual_only},
      {"source encoding copied in", copy_source},
  };
  ASSERT_EQ(golden["rows"].size(), rows.size()) << "one golden row per printed row";
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& [name, iv] = rows[i];
    const testing::json& want = golden["rows"][i];
    ASSERT_EQ(want["name"], name);
    const DecodeSession s = run(model, text, iv);
    out[name] = text_of(s);
    std::printf("[ table ] %-34s %s\n", name.c_str(), out[name].c_str());
    EXPECT_EQ(out[name], want["translation"].get<std::string>()) << name;
    EXPECT_EQ(s.nbest().at(0).tokens, want["tokens"].get<std::vector<int>>()) << name;
    EXPECT_EQ(!s.nbest().at(0).finished, want["hit_max_length"].get<bool>()) << name;
    // The golden's JSON form of the same intervention (what the CLI and JS take) gives the same.
    const DecodeOptions parsed = decode_options_from_json(testing::json{{"interventions", want["interventions"]}}.dump());
    EXPECT_EQ(text_of(run(model, text, parsed.interventions)), out[name]) << name << " from its JSON form";
  }
  EXPECT_EQ(out["none"], "ich konnen apfel essen");
  EXPECT_NE(out["no attention (cross skipped)"], out["none"]);
  EXPECT_NE(out["uniform cross-attention"], out["none"]);
}

TEST(Interventions, UniformCrossChangesCrossAttentionAndNothingUpstream) {
  const auto model = toy();
  const DecodeSession plain = run(model, "we can drink water", {});
  const DecodeSession uniform = run(model, "we can drink water", cross(HeadEdit::Pattern::Uniform));
  const int S = static_cast<int>(plain.source().ids.size());
  EXPECT_EQ(uniform.encoder_trace().attention[kEncoderSelf].data, plain.encoder_trace().attention[kEncoderSelf].data) << "the encoder is upstream";
  // At step 0 the decoder self-attention (before cross-attention) is identical too.
  EXPECT_EQ(uniform.history()[0].expansions[0].trace.attention[kDecoderSelf].data,
            plain.history()[0].expansions[0].trace.attention[kDecoderSelf].data);
  for (const StepRecord& r : uniform.history())
    for (float w : r.expansions[0].trace.attention[kCross].data) EXPECT_FLOAT_EQ(w, 1.0f / S);
  EXPECT_NE(uniform.history()[0].expansions[0].logits, plain.history()[0].expansions[0].logits);
}

TEST(Interventions, CopiedSourceEncodingReplacesTheCrossAttentionOutput) {
  const auto model = toy();
  Interventions copy;
  copy.copy_source_encoding = true;
  DecodeOptions o;
  o.capture = {true, true, true};
  o.interventions = copy;
  DecodeSession copied(model, "we can drink water", o);
  copied.run();
  o.interventions = {};
  DecodeSession plain(model, "we can drink water", o);
  plain.run();
  // The mean of the encoder output, computed here from the encoder alone.
  const Matrix memory = encode(*model, plain.source().ids, Capture{}, nullptr);
  const RowVector mean = memory.colwise().mean();
  for (const StepRecord& r : copied.history()) {
    const auto& got = r.expansions[0].trace.vectors.at("layers.0.cross_attn_output");
    ASSERT_EQ(got.cols(), mean.cols());
    for (Eigen::Index i = 0; i < mean.cols(); ++i) EXPECT_NEAR(got(0, i), mean[i], 1e-6f);
  }
  // Upstream of the cross-attention output nothing moves: encoder, and step 0's self-attention
  // and cross-attention weights (the attention still runs; only its output is replaced).
  EXPECT_EQ(copied.encoder_trace().attention[kEncoderSelf].data, plain.encoder_trace().attention[kEncoderSelf].data);
  EXPECT_EQ(copied.history()[0].expansions[0].trace.attention[kDecoderSelf].data, plain.history()[0].expansions[0].trace.attention[kDecoderSelf].data);
  EXPECT_EQ(copied.history()[0].expansions[0].trace.attention[kCross].data, plain.history()[0].expansions[0].trace.attention[kCross].data);
  EXPECT_NE(copied.history()[0].expansions[0].logits, plain.history()[0].expansions[0].logits);
  EXPECT_TRUE(decode_options_from_json(R"({"interventions": {"copySourceEncoding": true}})").interventions.copy_source_encoding);
  EXPECT_THROW(decode_options_from_json(R"({"interventions": {"copySourceEncoding": 1}})"), InputError);
}

TEST(Interventions, CustomMatrixGivesEachQueryItsRow) {
  const auto model = toy();
  // "i eat apple" has 4 source tokens (with </s>); rows for target positions 0 and 1, then
  // position 2 onwards keeps the last row.
  const DecodeSession s = run(model, "i eat apple", cross(HeadEdit::Pattern::Custom, {{1, 0, 0, 0}, {0, 0, 3, 1}}));
  ASSERT_GE(s.history().size(), 3u);
  EXPECT_EQ(s.history()[0].expansions[0].trace.attention[kCross].data, (std::vector<float>{1, 0, 0, 0}));
  EXPECT_EQ(s.history()[1].expansions[0].trace.attention[kCross].data, (std::vector<float>{0, 0, 0.75f, 0.25f}));
  EXPECT_EQ(s.history()[2].expansions[0].trace.attention[kCross].data, (std::vector<float>{0, 0, 0.75f, 0.25f}));
  // The encoder takes a square matrix: row i for source position i.
  Interventions enc;
  enc.attention.push_back({"encoder", 0, 0, HeadEdit::Pattern::Custom,
                           {{1, 0, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}});
  const DecodeSession e = run(model, "i eat apple", enc);
  EXPECT_EQ(e.encoder_trace().attention[kEncoderSelf].data,
            (std::vector<float>{1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  const DecodeOptions parsed = decode_options_from_json(
      R"({"interventions": {"attention": [{"site": "cross", "pattern": "custom", "weights": [[1, 2], [3, 4]]}]}})");
  EXPECT_EQ(parsed.interventions.attention.at(0).custom, (std::vector<std::vector<float>>{{1, 2}, {3, 4}}));
  EXPECT_THROW(decode_options_from_json(R"({"interventions": {"attention": [{"pattern": "custom", "weights": []}]}})"),
               InputError);
}

TEST(Interventions, PatternsAreTheDocumentedRows) {
  const auto model = toy();
  const DecodeSession beginning = run(model, "we want to read book", cross(HeadEdit::Pattern::Beginning));  // 6 keys
  const std::vector<float> want = {0.5f, 0.25f, 0.15f, 0.1f / 3, 0.1f / 3, 0.1f / 3};
  const auto& row = beginning.history()[0].expansions[0].trace.attention[kCross].data;
  ASSERT_EQ(row.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(row[i], want[i]);

  const DecodeSession end = run(model, "i eat apple", cross(HeadEdit::Pattern::End));
  EXPECT_EQ(end.history()[0].expansions[0].trace.attention[kCross].data, (std::vector<float>{0, 0, 0, 1}));

  const DecodeSession custom = run(model, "i eat apple", cross(HeadEdit::Pattern::Custom, {{0, 2, 2, 0}}));
  EXPECT_EQ(custom.history()[1].expansions[0].trace.attention[kCross].data, (std::vector<float>{0, 0.5f, 0.5f, 0}));

  Interventions self_end;
  self_end.attention.push_back({"self", 0, 0, HeadEdit::Pattern::End, {}});
  const DecodeSession s = run(model, "i eat apple", self_end);
  EXPECT_EQ(s.history()[2].expansions[0].trace.attention[kDecoderSelf].data, (std::vector<float>{0, 0, 1}));
}

TEST(Interventions, MaskedHeadStillAttendsButContributesNothing) {
  const auto model = Model::load_file(testing::golden_path("deep_pre_sin_bpe.safetensors"));
  Interventions iv;
  iv.masked_heads.push_back({"encoder", 2, 5});
  const DecodeSession plain = run(model, "A dog runs.", {});
  const DecodeSession masked = run(model, "A dog runs.", iv);
  EXPECT_EQ(masked.encoder_trace().attention[kEncoderSelf].data, plain.encoder_trace().attention[kEncoderSelf].data)
      << "the masked head's own weights are still reported, and layers 0-2 attend as before";
  EXPECT_NE(masked.history()[0].expansions[0].trace.attention[kCross].data,
            plain.history()[0].expansions[0].trace.attention[kCross].data)
      << "the encoder output changed, so the decoder looks elsewhere";
}

TEST(Interventions, EmptySetIsTheTrainedModelExactly) {
  const auto model = toy();
  const DecodeSession before = run(model, "i want to eat bread", {});
  run(model, "i want to eat bread", cross(HeadEdit::Pattern::Uniform));  // sessions share no state
  const DecodeSession after = run(model, "i want to eat bread", {});
  ASSERT_EQ(after.history().size(), before.history().size());
  for (std::size_t i = 0; i < after.history().size(); ++i)
    EXPECT_EQ(after.history()[i].expansions[0].logits, before.history()[i].expansions[0].logits);
}

TEST(Interventions, ComposeWithBeamSamplingBackAndForce) {
  const auto model = toy();
  const DecodeSession beam = run(model, "i can eat apple", cross(HeadEdit::Pattern::Uniform), Strategy::Beam);
  EXPECT_TRUE(beam.done());
  DecodeOptions o;
  o.strategy = Strategy::Sample;
  o.seed = 4;
  o.capture.logits = true;
  o.interventions = cross(HeadEdit::Pattern::End);
  DecodeSession a(model, "we drink beer", o), b(model, "we drink beer", o);
  a.run();
  b.step();
  b.force(5);
  b.back();
  b.run();
  EXPECT_EQ(a.nbest()[0].tokens, b.nbest()[0].tokens);
}

TEST(Interventions, BadIndicesAndRowsAreClearErrors) {
  const auto model = toy();
  auto error = [&](Interventions iv) {
    DecodeOptions o;
    o.interventions = std::move(iv);
    try {
      DecodeSession(model, "i eat apple", o);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  Interventions iv;
  iv.masked_heads.push_back({"cross", 1, 0});
  EXPECT_EQ(error(iv), "cross attention layer 1 is out of range [0, 1)");
  iv = {};
  iv.attention.push_back({"encoder", 0, 4, HeadEdit::Pattern::Uniform, {}});
  EXPECT_EQ(error(iv), "encoder attention head 4 is out of range [0, 1)");
  EXPECT_NE(error(cross(HeadEdit::Pattern::Custom, {{1, 1}})).find("custom attention row 0 has 2 weights but the source has 4"),
            std::string::npos);
  EXPECT_NE(error(cross(HeadEdit::Pattern::Custom, {{0, 0, 0, 0}})).find("must not all be zero"), std::string::npos);
  EXPECT_THROW(decode_options_from_json(R"({"interventions": {"skip": ["attention"]}})"), InputError);
  EXPECT_THROW(decode_options_from_json(R"({"interventions": {"attention": [{"pattern": "random"}]}})"), InputError);
  const DecodeOptions parsed = decode_options_from_json(
      R"({"interventions": {"attention": [{"site": "encoder", "layer": "*", "head": 0, "pattern": "end"}],
                            "maskHeads": [{"site": "self", "layer": 0, "head": 0}], "skip": ["ffn", "layerNorm"]}})");
  ASSERT_EQ(parsed.interventions.attention.size(), 1u);
  EXPECT_EQ(parsed.interventions.attention[0].site, "encoder");
  EXPECT_EQ(parsed.interventions.attention[0].layer, -1);
  EXPECT_EQ(parsed.interventions.masked_heads[0].site, "self");
  EXPECT_TRUE(parsed.interventions.skip_ffn && parsed.interventions.skip_layer_norm);
}

}  // namespace
}  // namespace attnscope
