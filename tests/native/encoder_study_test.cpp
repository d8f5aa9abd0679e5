// The encoder-only head study (src/analysis/encoder_study.h) against its PyTorch reference
// (models/goldens/make_bert_study_goldens.py -> tests/golden/bert/study.json): every head's pattern class,
// the per-layer and per-head shares of attention on [CLS], [SEP], punctuation, the previous and
// the next token, raw and norm-weighted (Kobayashi et al. 2020), at <= 1e-4, NaN failing; and the
// head ablation's masked-token counts on study_mlm (a tiny MLM trained on the toy grammar), exact.
#include <gtest/gtest.h>

#include "analysis/encoder_study.h"
#include "test_support.h"

namespace attnscope {
namespace {

using testing::expect_close;
using testing::json;

std::vector<float> flat(const std::vector<AttentionShares>& shares) {
  std::vector<float> out;
  for (const AttentionShares& s : shares)
    for (double x : {s.cls, s.sep, s.punct, s.prev, s.next}) out.push_back(static_cast<float>(x));
  return out;
}

json as_rows(const json& shares) {  // [{cls, sep, punct, prev, next}] -> [[5 numbers]]
  json rows = json::array();
  for (const json& s : shares) rows.push_back({s["cls"], s["sep"], s["punct"], s["prev"], s["next"]});
  return rows;
}

std::shared_ptr<const Model> golden_model(const std::string& file) {
  return Model::load_file(testing::golden_path("bert/" + file));
}

TEST(BertStudy, PatternsAndSharesMatchPyTorchReference) {
  const json golden = testing::load_json(testing::golden_path("bert/study.json"));
  int cases = 0;
  for (const auto& [name, g] : golden["models"].items()) {
    const auto model = golden_model(g["model"]);
    for (const json& c : g["cases"]) {
      const std::string at = name + " '" + c["text"].get<std::string>() + "'";
      const Encoding e = encode_for_study(*model, c["text"]);
      EXPECT_EQ(e.input.pieces, c["pieces"].get<std::vector<std::string>>()) << at;
      EXPECT_EQ(head_patterns(e), c["patterns"].get<std::vector<std::vector<std::string>>>()) << at;
      const ShareStudy s = attention_shares(*model, e);
      const int L = static_cast<int>(s.raw.size());
      ASSERT_EQ(L, static_cast<int>(c["raw"].size())) << at;
      for (const char* kind : {"raw", "norm"}) {
        const std::vector<AttentionShares>& layers = std::string(kind) == "raw" ? s.raw : s.norm;
        const std::vector<float> got = flat(layers);
        expect_close(as_rows(c[kind]), got.data(), got.size(), {L, 5}, at + " " + kind);
        for (int l = 0; l < L; ++l) {
          const auto& heads = std::string(kind) == "raw" ? s.raw_heads[l] : s.norm_heads[l];
          const std::vector<float> h = flat(heads);
          expect_close(as_rows(c[std::string(kind) + "_heads"][l]), h.data(), h.size(),
                       {static_cast<int>(heads.size()), 5}, at + " " + kind + " heads of layer " + std::to_string(l));
        }
      }
      ++cases;
    }
  }
  EXPECT_EQ(cases, 8);
}

TEST(BertStudy, SharesDifferBetweenRawAndNormWeighted) {
  // Not a tautology: the norm weighting moves attention (a sanity check that the golden's two
  // columns are not the same numbers).
  const json golden = testing::load_json(testing::golden_path("bert/study.json"));
  const json& c = golden["models"]["small_mlm"]["cases"][0];
  double moved = 0;
  for (std::size_t l = 0; l < c["raw"].size(); ++l)
    moved += std::abs(c["raw"][l]["cls"].get<double>() - c["norm"][l]["cls"].get<double>());
  EXPECT_GT(moved, 1e-3);
}

TEST(BertStudy, HeadAblationMatchesPyTorchReference) {
  const json g = testing::load_json(testing::golden_path("bert/study.json"))["ablation"];
  const auto model = golden_model(g["model"]);
  std::vector<int> seen;
  const HeadAblation a = head_ablation(*model, g["sentences"].get<std::vector<std::string>>(),
                                       [&](int done, int total) { seen.push_back(done * 100 + total); });
  EXPECT_EQ(a.positions, g["positions"].get<int>());
  EXPECT_EQ(a.base_correct, g["base_correct"].get<int>());
  EXPECT_NEAR(a.base_accuracy, g["base_accuracy"].get<double>(), 1e-12);
  EXPECT_EQ(a.correct, g["correct"].get<std::vector<std::vector<int>>>());
  const auto delta = g["delta"].get<std::vector<std::vector<double>>>();
  ASSERT_EQ(a.delta.size(), delta.size());
  for (std::size_t l = 0; l < delta.size(); ++l) {
    ASSERT_EQ(a.delta[l].size(), delta[l].size());
    for (std::size_t h = 0; h < delta[l].size(); ++h) EXPECT_NEAR(a.delta[l][h], delta[l][h], 1e-12) << l << "," << h;
  }
  EXPECT_EQ(seen, (std::vector<int>{4, 104, 204, 304, 404}));  // 2 layers x 2 heads
}

TEST(BertStudy, BadInputIsAnInputError) {
  const auto model = golden_model("study_mlm.safetensors");
  EXPECT_THROW(head_ablation(*model, {}), InputError);
  EXPECT_THROW(head_ablation(*model, {"[MASK] [SEP]"}), InputError);  // nothing to mask
  try {
    head_ablation(*model, {"i eat bread", "   "});
    FAIL() << "an empty sentence was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sentence 2"), std::string::npos) << e.what();
  }
  Encoding bare = encode_text(*model, "i eat bread", Capture{true, false, false});
  EXPECT_THROW(attention_shares(*model, bare), InputError);  // no transformed value vectors
  bare.trace.attention.clear();
  EXPECT_THROW(head_patterns(bare), InputError);
}

}  // namespace
}  // namespace attnscope
