// BERT snapshots in the layouts real Hugging Face snapshots use (tests/data/hf/bert-*: BertForMaskedLM
// with and without the tied decoder, the old gamma/beta BertForPreTraining with pooler and
// next-sentence head; uncased, cased and multilingual vocabularies), converted by
// models/convert/convert_hf.py, against Hugging Face's BertTokenizer and BertForMaskedLM as
// models/reference/hf_bert.py re-reads them (goldens from models/goldens/make_hf_bert_goldens.py in
// tests/golden/hf/): pieces, ids, token types, every attention map and the MLM logits at every
// [MASK], at <= 1e-4, NaN failing. And the WordPiece settings of tokenizer_config.json
// (do_lower_case, strip_accents, tokenize_chinese_chars, never_split) as the converter writes them,
// against Hugging Face's pieces.
#include <gtest/gtest.h>

#include <cctype>

#include "core/error.h"
#include "families/bert/bert.h"
#include "model/encoder_only.h"
#include "test_support.h"
#include "text/tokenizer.h"

namespace attnscope {
namespace {

using testing::expect_close;
using testing::json;

class HfBertGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(HfBertGoldenTest, MatchesHuggingFaceForward) {
  const json golden = testing::load_json(testing::golden_path("hf/" + GetParam() + ".json"));
  const auto model = Model::load_file(testing::golden_path("hf/" + golden["model"].get<std::string>()));
  const json& hf = golden["hf_config"];
  const int layers = hf["num_hidden_layers"], heads = hf["num_attention_heads"], vocab = hf["vocab_size"];
  ASSERT_EQ(model->sites().size(), 1u);
  EXPECT_EQ(model->sites()[0].layers, layers);
  EXPECT_EQ(model->sites()[0].heads, heads);
  ASSERT_EQ(model->src_vocab.size(), vocab);
  const bert::Bert& b = bert::of(*model);
  int cases = 0;
  for (const json& c : golden["cases"]) {
    const std::string at = GetParam() + " '" + c["text"].get<std::string>() + "'";
    const EncoderInput in = encoder_only(*model).tokenize(*model, c["text"]);
    EXPECT_EQ(in.pieces, c["pieces"].get<std::vector<std::string>>()) << at;
    EXPECT_EQ(in.ids, c["ids"].get<std::vector<int>>()) << at;
    EXPECT_EQ(in.segments, c["token_type_ids"].get<std::vector<int>>()) << at;

    const Encoding e = encode_text(*model, c["text"], Capture{true, false, false});
    const Tensor& attn = site_attention(e.trace.attention, bert::kSelf);
    const int t = static_cast<int>(in.ids.size());
    ASSERT_EQ(attn.shape, (std::vector<int>{layers, heads, t, t})) << at;
    expect_close(c["attention"], attn.data.data(), attn.data.size(), attn.shape, at + " attention");

    const Matrix logits = b.mlm_logits(e.hidden);
    const std::vector<int> masked = c["masked_positions"];
    ASSERT_FALSE(masked.empty()) << at;
    Matrix at_masks(static_cast<Eigen::Index>(masked.size()), logits.cols());
    for (std::size_t m = 0; m < masked.size(); ++m) at_masks.row(static_cast<Eigen::Index>(m)) = logits.row(masked[m]);
    expect_close(c["mlm_logits"], at_masks.data(), at_masks.size(), {static_cast<int>(masked.size()), vocab},
                 at + " MLM logits");
    ++cases;
  }
  EXPECT_EQ(cases, 4);
}

INSTANTIATE_TEST_SUITE_P(Snapshots, HfBertGoldenTest,
                         ::testing::Values("bert-base-uncased-tiny", "bert-base-cased-tiny",
                                           "bert-base-multilingual-cased-tiny", "bert-base-uncased-tiny-gamma-beta"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name;
                           for (char ch : info.param) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return name;
                         });

TEST(HfBertTokenizerSettings, MatchHuggingFaceBertTokenizer) {
  const json golden = testing::load_json(testing::golden_path("hf/bert-tokenizer-settings.json"));
  const Vocabulary vocab(golden["vocab"].get<std::vector<std::string>>());
  int checked = 0;
  for (const json& s : golden["specs"]) {
    const auto tokenizer = Tokenizer::from_json(s["spec"].dump(), vocab);
    for (const json& c : s["cases"]) {
      EXPECT_EQ(tokenizer->split(c["text"]), c["pieces"].get<std::vector<std::string>>())
          << s["name"] << ": '" << c["text"].get<std::string>() << "'";
      ++checked;
    }
    // What the engine writes back reads as the same tokenizer.
    const auto again = Tokenizer::from_json(tokenizer->to_json(), vocab);
    EXPECT_EQ(again->to_json(), tokenizer->to_json()) << s["name"];
  }
  EXPECT_EQ(checked, 70);
}

TEST(HfBertTokenizerSettings, RefusesBadFields) {
  const Vocabulary vocab({"[UNK]", "a"});
  EXPECT_THROW(Tokenizer::from_json(R"({"type":"wordpiece","strip_accents":1})", vocab), ModelFileError);
  EXPECT_THROW(Tokenizer::from_json(R"({"type":"wordpiece","tokenize_chinese_chars":"no"})", vocab), ModelFileError);
  EXPECT_THROW(Tokenizer::from_json(R"({"type":"wordpiece","never_split_words":"a"})", vocab), ModelFileError);
  EXPECT_THROW(Tokenizer::from_json(R"({"type":"wordpiece","never_split_words":[""]})", vocab), ModelFileError);
}

}  // namespace
}  // namespace attnscope
