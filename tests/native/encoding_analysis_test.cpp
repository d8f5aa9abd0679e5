// The analyses of one encoding (src/analysis/encoding_analysis.h) of an encoder-only model, with
// and without heads switched off, against their PyTorch reference
// (models/goldens/make_encoding_analysis_goldens.py -> tests/golden/bert/encoding_analysis.json):
// rollout, value-weighted attention, the scores before the softmax, the pattern classes and the
// fill-mask probabilities, at <= 1e-4, NaN failing. And the interventions each family refuses
// (model/interventions.h InterventionSupport): what its table says is what encode() refuses.
#include <gtest/gtest.h>

#include "analysis/encoding_analysis.h"
#include "model/encoder_only.h"
#include "test_support.h"

namespace attnscope {
namespace {

using testing::expect_close;
using testing::json;

Interventions masking(const json& heads) {
  Interventions iv;
  for (const json& h : heads) iv.masked_heads.push_back({"self", h[0].get<int>(), h[1].get<int>()});
  return iv;
}

TEST(EncodingAnalysis, MatchesPyTorchReferenceWithAndWithoutHeadsSwitchedOff) {
  const json golden = testing::load_json(testing::golden_path("bert/encoding_analysis.json"));
  const auto model = Model::load_file(testing::golden_path("bert/" + golden["model"].get<std::string>()));
  const AttentionSiteInfo& site = model->sites()[source_self_attention_site(model->sites())];
  const int L = site.layers, H = site.heads;
  int cases = 0;
  for (const json& c : golden["cases"]) {
    const std::string at = "'" + c["text"].get<std::string>() + "' masked " + c["masked"].dump();
    const Interventions iv = masking(c["masked"]);
    const FillMask f = fill_mask(*model, c["text"], 3, Capture{true, true, false}, iv);
    const EncoderTrace& trace = f.encoding.trace;
    ASSERT_EQ(f.encoding.input.pieces, c["pieces"].get<std::vector<std::string>>()) << at;
    const int T = static_cast<int>(f.encoding.input.pieces.size());

    const Matrix rollout = encoder_rollout(*model, trace);
    expect_close(c["rollout"], rollout.data(), rollout.size(), {T, T}, at + " rollout");  // Matrix is row-major

    const Tensor weighted = value_weighted_attention(*model, trace, site.name);
    expect_close(c["weighted"], weighted.data.data(), weighted.data.size(), weighted.shape, at + " value-weighted");
    EXPECT_EQ(weighted.shape, (std::vector<int>{L, H, T, T})) << at;

    std::vector<float> logits;
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < H; ++h)
        for (int q = 0; q < T; ++q) {
          const RowVector row = attention_logits(*model, trace, site.name, l, h, q);
          logits.insert(logits.end(), row.data(), row.data() + row.size());
        }
    expect_close(c["logits"], logits.data(), logits.size(), {L, H, T, T}, at + " logits");

    EXPECT_EQ(encoder_patterns(*model, trace), c["patterns"].get<std::vector<std::string>>()) << at;

    ASSERT_EQ(f.masks.size(), c["fill"].size()) << at;
    for (std::size_t m = 0; m < f.masks.size(); ++m) {
      const json& want = c["fill"][m];
      EXPECT_EQ(f.masks[m].position, want["position"].get<int>()) << at;
      std::vector<float> probs;
      for (std::size_t k = 0; k < f.masks[m].top.size(); ++k) {
        EXPECT_EQ(f.masks[m].top[k].id, want["ids"][k].get<int>()) << at << " mask " << m << " rank " << k;
        probs.push_back(f.masks[m].top[k].probability);
      }
      expect_close(want["probs"], probs.data(), probs.size(), {3}, at + " fill-mask probabilities");
    }
    ++cases;
  }
  EXPECT_EQ(cases, 6);
}

TEST(EncodingAnalysis, SwitchingAHeadOffChangesTheGuessesAndTheAttentionRowIsTheCaptured) {
  // Not a tautology of the golden: the masked case's probabilities differ from the unmasked ones.
  const json golden = testing::load_json(testing::golden_path("bert/encoding_analysis.json"));
  EXPECT_GT(std::abs(golden["cases"][0]["fill"][0]["probs"][0].get<double>() - golden["cases"][1]["fill"][0]["probs"][0].get<double>()), 1e-3);
  const auto model = Model::load_file(testing::golden_path("bert/study_mlm.safetensors"));
  const Encoding e = encode_text(*model, "i want to eat [MASK] .", Capture{true, true, false});
  const Tensor& a = trace_attention(*model, e.trace, 0);
  const int T = a.shape[2];
  const RowVector row = attention_row(*model, e.trace, "self", 1, 1, 2);
  for (int k = 0; k < T; ++k) EXPECT_EQ(row[k], a.data[((1 * a.shape[1] + 1) * T + 2) * T + k]);
  EXPECT_THROW(attention_logits(*model, e.trace, "self", 2, 0, 0), IndexError);
  EXPECT_THROW(attention_logits(*model, e.trace, "self", 0, 0, T), IndexError);
  EXPECT_THROW(attention_logits(*model, e.trace, "cross", 0, 0, 0), InputError);
  const Encoding plain = encode_text(*model, "i want", Capture{true, false, false});
  EXPECT_THROW(value_weighted_attention(*model, plain.trace, "self"), Error);
}

TEST(EncodingAnalysis, EachFamilyRefusesWhatItsTableSays) {
  const auto bert_model = Model::load_file(testing::golden_path("bert/study_mlm.safetensors"));
  const InterventionSupport& support = bert_model->family->intervention_support();
  std::vector<std::string> refused;
  for (const auto& r : support.refused) refused.push_back(r.option);
  EXPECT_EQ(refused, (std::vector<std::string>{"decoderSelfAttention", "crossAttention", "copySourceEncoding", "lastSourceState"}));
  const std::vector<int> ids = encoder_only(*bert_model).tokenize(*bert_model, "i want").ids;
  Interventions last;
  last.last_source_state = true;
  EXPECT_THROW(bert_model->family->encode(ids, Capture{}, nullptr, last), InputError);
  Interventions taken;  // what BERT applies: head masks and its own sub-layers' skips
  taken.masked_heads.push_back({"self", 0, 0});
  taken.skip_encoder_self_attention = taken.skip_ffn = taken.skip_layer_norm = true;
  EXPECT_NO_THROW(support.check(taken));
  EXPECT_NO_THROW(bert_model->family->encode(ids, Capture{}, nullptr, taken));

  const auto toy = Model::load_file(testing::frozen_toy_path());
  EXPECT_TRUE(toy->family->intervention_support().refuses("lastSourceState"));
  EXPECT_FALSE(toy->family->intervention_support().refuses("copySourceEncoding"));
  EXPECT_FALSE(toy->family->intervention_support().refuses("maskHeads"));
  try {
    toy->family->intervention_support().check(last);
    FAIL() << "a transformer took 'last state only'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'last state only' needs one final encoder state"), std::string::npos);
  }
}

}  // namespace
}  // namespace attnscope
