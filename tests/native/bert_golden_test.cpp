// The BERT family against its PyTorch reference (models/reference/attnscope_ref/bert.py; goldens from
// models/goldens/make_bert_goldens.py in tests/golden/bert/): pieces, ids and segments, the embedding
// LayerNorm's output, every layer's q, k, v, transformed value vectors and output, every
// attention weight, the pooled vector, every MLM logit and the top pieces at each [MASK], at
// <= 1e-4, NaN failing. hf_converted: a model written in the Hugging Face layout and converted by
// models/convert/convert_hf.py, against a forward pass over the Hugging Face names.
#include <gtest/gtest.h>

#include "decoding/session.h"
#include "families/bert/bert.h"
#include "model/encoder_only.h"
#include "test_support.h"

namespace attnscope {
namespace {

using testing::expect_close;
using testing::json;

void expect_vector(const json& expected, const NamedVectors& vectors, const std::string& name, const std::string& at) {
  auto it = vectors.find(name);
  ASSERT_NE(it, vectors.end()) << at << ": engine did not record '" << name << "'";
  const Matrix& m = it->second;
  expect_close(expected, m.data(), m.size(), {static_cast<int>(m.rows()), static_cast<int>(m.cols())},
               at + " " + name);
}

class BertGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BertGoldenTest, EncoderAndMlmHeadMatchPyTorchReference) {
  const json golden = testing::load_json(testing::golden_path("bert/" + GetParam() + ".json"));
  const auto model = Model::load_file(testing::golden_path("bert/" + golden["model"].get<std::string>()));
  ASSERT_EQ(model->family->decoder(), nullptr);
  ASSERT_EQ(model->sites().size(), 1u);
  EXPECT_EQ(model->sites()[0].name, "self");
  EXPECT_EQ(model->sites()[0].layers, golden["config"]["n_layers"].get<int>());
  EXPECT_EQ(model->sites()[0].heads, golden["config"]["n_heads"].get<int>());
  const bert::Bert& b = bert::of(*model);
  const int top_k = golden["top_k"];
  int cases = 0;
  for (const json& c : golden["cases"]) {
    const std::string at = GetParam() + " '" + c["text"].get<std::string>() + "'";
    const EncoderInput in = encoder_only(*model).tokenize(*model, c["text"]);
    EXPECT_EQ(in.pieces, c["pieces"].get<std::vector<std::string>>()) << at;
    EXPECT_EQ(in.ids, c["ids"].get<std::vector<int>>()) << at;
    EXPECT_EQ(in.segments, c["segments"].get<std::vector<int>>()) << at;

    const Encoding e = encode_text(*model, c["text"], Capture{true, true, false});
    const NamedVectors& v = e.trace.vectors;
    expect_vector(c["embedding_sum"], v, "embedding_sum", at);
    // hf_converted's numbers come from a forward pass over the Hugging Face names, which records
    // no per-layer vectors.
    for (std::size_t l = 0; c.contains("layers") && l < c["layers"].size(); ++l) {
      const std::string p = "layers." + std::to_string(l) + ".";
      for (const char* name : {"q", "k", "v", "transformed_values", "output"})
        expect_vector(c["layers"][l][name], v, p + name, at);
    }
    expect_vector(c["output"], v, "output", at);
    expect_close(c["output"], e.hidden.data(), e.hidden.size(),
                 {static_cast<int>(e.hidden.rows()), static_cast<int>(e.hidden.cols())}, at + " hidden");
    if (c.contains("pooled")) expect_vector(c["pooled"], v, "pooled", at);
    else EXPECT_EQ(v.count("pooled"), 0u) << at;
    const Tensor& attn = site_attention(e.trace.attention, bert::kSelf);
    expect_close(c["attention"], attn.data.data(), attn.data.size(), attn.shape, at + " attention");
    const Matrix logits = b.mlm_logits(e.hidden);
    expect_close(c["logits"], logits.data(), logits.size(),
                 {static_cast<int>(logits.rows()), static_cast<int>(logits.cols())}, at + " logits");

    if (c["masks"].empty()) {
      EXPECT_THROW(fill_mask(*model, c["text"], top_k, Capture{}), InputError) << at;
    } else {
      const FillMask f = fill_mask(*model, c["text"], top_k, Capture{});
      ASSERT_EQ(f.masks.size(), c["masks"].size()) << at;
      for (std::size_t m = 0; m < f.masks.size(); ++m) {
        const json& want = c["masks"][m];
        EXPECT_EQ(f.masks[m].position, want["position"].get<int>()) << at;
        std::vector<int> ids;
        std::vector<float> probs;
        for (const Candidate& k : f.masks[m].top) {
          ids.push_back(k.id);
          probs.push_back(k.probability);
          EXPECT_EQ(k.piece, model->src_vocab.token(k.id));
        }
        EXPECT_EQ(ids, want["ids"].get<std::vector<int>>()) << at << " mask " << m;
        expect_close(want["probabilities"], probs.data(), probs.size(), {top_k}, at + " probabilities");
      }
    }
    ++cases;
  }
  EXPECT_EQ(cases, 5);
}

INSTANTIATE_TEST_SUITE_P(Models, BertGoldenTest, ::testing::Values("tiny_pooler", "small_mlm", "hf_converted"));

TEST(BertModel, HasNoDecoderAndSaysSo) {
  const auto model = Model::load_file(testing::golden_path("bert/tiny_pooler.safetensors"));
  try {
    model->decoder();
    FAIL() << "a BERT model returned a decoder";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no decoder"), std::string::npos) << e.what();
  }
  try {
    DecodeSession session(model, "i want to eat", DecodeOptions{});
    FAIL() << "a session started on a BERT model";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no decoder: it cannot translate"), std::string::npos) << e.what();
  }
}

TEST(BertModel, RefusesBadInputWithAMessage) {
  const auto model = Model::load_file(testing::golden_path("bert/tiny_pooler.safetensors"));
  EXPECT_THROW(encoder_only(*model).tokenize(*model, "   "), InputError);
  std::string long_text;
  for (int i = 0; i < 40; ++i) long_text += "i ";
  EXPECT_THROW(encoder_only(*model).tokenize(*model, long_text), InputError);
  EXPECT_THROW(fill_mask(*model, "i want to eat", 3, Capture{}), InputError);
  EXPECT_THROW(fill_mask(*model, "i want [MASK]", 0, Capture{}), InputError);
  EXPECT_THROW(fill_mask(*model, "i want [MASK]", model->src_vocab.size() + 1, Capture{}), InputError);
  Interventions cross;
  cross.skip_cross_attention = true;
  EXPECT_THROW(encode_text(*model, "i want [MASK]", Capture{}, cross), InputError);
  EXPECT_THROW(model->family->encode({}, Capture{}, nullptr, {}), InputError);
  EXPECT_THROW(model->family->encode({9999}, Capture{}, nullptr, {}), IndexError);
}

TEST(BertModel, MaskedHeadChangesOnlyWhatItShould) {
  const auto model = Model::load_file(testing::golden_path("bert/small_mlm.safetensors"));
  const std::string text = "i want to eat [MASK] .";
  const Encoding plain = encode_text(*model, text, Capture{true, false, false});
  Interventions iv;
  iv.masked_heads.push_back({"self", 1, 2});
  const Encoding masked = encode_text(*model, text, Capture{true, false, false}, iv);
  // Layer 0 is untouched, layer 1 attends as before (a masked head still attends), the output moves.
  const Tensor& a = plain.trace.attention[bert::kSelf];
  const Tensor& b = masked.trace.attention[bert::kSelf];
  const std::size_t layer = a.data.size() / 3;
  EXPECT_TRUE(std::equal(a.data.begin(), a.data.begin() + 2 * layer, b.data.begin()));
  EXPECT_GT((plain.hidden - masked.hidden).cwiseAbs().maxCoeff(), 1e-3f);
}

}  // namespace
}  // namespace attnscope
