// The WordPiece tokenizer against the Python reference written from the published algorithm
// (models/reference/attnscope_ref/wordpiece.py; tests/golden/bert/wordpiece.json from
// models/goldens/make_bert_goldens.py): accents, punctuation, CJK, Hangul, final sigma, control and
// zero-width characters, unknown and over-long words, specials inside the text.
#include <gtest/gtest.h>

#include "core/error.h"
#include "test_support.h"
#include "text/unicode.h"
#include "text/utf8.h"
#include "text/wordpiece_tokenizer.h"

namespace attnscope {
namespace {

using testing::json;

TEST(WordPiece, MatchesPythonReference) {
  const json golden = testing::load_json(testing::golden_path("bert/wordpiece.json"));
  const Vocabulary vocab(golden["vocab"].get<std::vector<std::string>>());
  int checked = 0;
  for (const json& s : golden["specs"]) {
    const auto tokenizer = Tokenizer::from_json(s["spec"].dump(), vocab);
    for (const json& c : s["cases"]) {
      const std::string text = c["text"];
      EXPECT_EQ(tokenizer->split(text), c["pieces"].get<std::vector<std::string>>())
          << s["name"] << ": '" << text << "'";
      EXPECT_EQ(tokenizer->join(c["pieces"].get<std::vector<std::string>>()), c["joined"].get<std::string>());
      ++checked;
    }
    EXPECT_EQ(json::parse(tokenizer->to_json()), s["spec"]);
  }
  EXPECT_EQ(checked, 52);
}

TEST(WordPiece, RefusesABadSpec) {
  const Vocabulary vocab({"[UNK]", "a"});
  EXPECT_THROW(Tokenizer::from_json(R"({"type":"wordpiece"})"), ModelFileError);  // no vocabulary
  EXPECT_THROW(Tokenizer::from_json(R"({"type":"wordpiece","unk":"<unk>"})", vocab), ModelFileError);
  EXPECT_THROW(Tokenizer::from_json(R"({"type":"wordpiece","max_chars_per_word":0})", vocab), ModelFileError);
  EXPECT_THROW(Tokenizer::from_json(R"({"type":"wordpiece","never_split":[""]})", vocab), ModelFileError);
  EXPECT_NO_THROW(Tokenizer::from_json(R"({"type":"wordpiece"})", vocab));
}

TEST(WordPiece, SurvivesInvalidUtf8) {
  const Vocabulary vocab({"[UNK]", "a", "b"});
  const auto t = Tokenizer::from_json(R"({"type":"wordpiece"})", vocab);
  EXPECT_EQ(t->split("a\xff\xfe b\xc3"), (std::vector<std::string>{"a", "b"}));  // U+FFFD is dropped
}

TEST(Unicode, TablesAnswerKnownCharacters) {
  EXPECT_TRUE(unicode::is_punctuation(U'!'));
  EXPECT_TRUE(unicode::is_punctuation(0x2014));  // em dash
  EXPECT_FALSE(unicode::is_punctuation(U'$'));    // Sc: BERT adds it by its ASCII rule
  EXPECT_TRUE(unicode::is_space_separator(0x3000));
  EXPECT_TRUE(unicode::is_control(0x200B));
  EXPECT_TRUE(unicode::is_nonspacing_mark(0x0301));
  EXPECT_EQ(encode_utf8(unicode::strip_accents(decode_utf8("Ångström ḉ"))), "Angstrom c");
  EXPECT_EQ(encode_utf8(unicode::lower(decode_utf8("ΟΔΟΣ ÀÉ"))), "οδος àé");
  EXPECT_EQ(std::string(unicode::version()), "14.0.0");
}

}  // namespace
}  // namespace attnscope
