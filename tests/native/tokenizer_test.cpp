// Tokenizers against the Python reference (models/reference/attnscope_ref/tokenizer.py), plus the
// properties every tokenizer must have whatever the text.
#include <gtest/gtest.h>

#include "core/error.h"
#include "text/bpe_tokenizer.h"
#include "text/normalize.h"
#include "text/utf8.h"
#include "test_support.h"

namespace attnscope {
namespace {

using testing::json;

class TokenizerGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(TokenizerGolden, MatchesPythonReference) {
  const json g = testing::load_json(testing::golden_path(GetParam()));
  const auto tokenizer = Tokenizer::from_json(g["tokenizer"].dump());
  const Vocabulary vocab(g["vocab"].get<std::vector<std::string>>());
  const int unk = vocab.id("<unk>", -1);
  ASSERT_GE(unk, 0);
  for (const json& c : g["cases"]) {
    const std::string text = c["text"];
    SCOPED_TRACE("text: '" + text + "'");
    const Encoded e = encode(*tokenizer, vocab, text, unk);
    EXPECT_EQ(e.pieces, c["pieces"].get<std::vector<std::string>>());
    EXPECT_EQ(e.ids, c["ids"].get<std::vector<int>>());
    EXPECT_EQ(e.unknown, c["unknown"].get<std::vector<std::string>>());
    EXPECT_EQ(decode(*tokenizer, vocab, e.ids, {}), c["detok"].get<std::string>());
  }
}

INSTANTIATE_TEST_SUITE_P(Goldens, TokenizerGolden, ::testing::Values("tokenizer_bpe.json", "tokenizer_word.json"));

// Whatever the merges, BPE pieces glue back to the normalised text (words joined by one space).
TEST(Tokenizer, BpeRoundTripsEveryKnownCharacterText) {
  const json g = testing::load_json(testing::golden_path("tokenizer_bpe.json"));
  const auto tokenizer = Tokenizer::from_json(g["tokenizer"].dump());
  for (const char* text : {"Zwei junge weiße Männer sind im Freien.", "  a  dog\truns.\n", "x", "",
                           "日本語 and 🙂 survive the round trip", "\xff\xfe broken utf-8"}) {
    std::string expected;
    for (const std::u32string& w : split_words(text, g["tokenizer"]["lowercase"].get<bool>()))
      expected += (expected.empty() ? "" : " ") + encode_utf8(w);
    EXPECT_EQ(tokenizer->join(tokenizer->split(text)), expected) << text;
  }
}

TEST(Tokenizer, InvalidUtf8BecomesReplacementCharacterNotACrash) {
  EXPECT_EQ(decode_utf8("a\xff" "b"), U"a\uFFFDb");
  EXPECT_EQ(decode_utf8("\xe2\x82"), U"\uFFFD\uFFFD");           // truncated sequence
  EXPECT_EQ(decode_utf8("\xc0\xaf"), U"\uFFFD\uFFFD");           // overlong '/'
  EXPECT_EQ(decode_utf8("\xed\xa0\x80"), U"\uFFFD\uFFFD\uFFFD");  // UTF-16 surrogate
  EXPECT_EQ(encode_utf8(decode_utf8("Grüße 🙂")), "Grüße 🙂");
}

TEST(Tokenizer, MalformedBpeMergesAreModelFileErrors) {
  EXPECT_THROW(BpeTokenizer({"ab"}, false), ModelFileError);
  EXPECT_THROW(BpeTokenizer({"a b c"}, false), ModelFileError);
  EXPECT_THROW(Tokenizer::from_json(R"({"type":"bpe"})"), ModelFileError);
  EXPECT_THROW(Tokenizer::from_json(R"({"type":"word","lowercase":"yes"})"), ModelFileError);
}

}  // namespace
}  // namespace attnscope
