// GPT-2's byte-level BPE, piece by piece: the byte alphabet, the pre-tokenisation regex, merges by
// rank, decoding, and the errors. The expected values are written by hand from openai/gpt-2's
// encoder.py (its bytes_to_unicode, `pat` under Python's `regex` module, bpe() and decode with
// errors="replace", checked with CPython's bytes.decode); tests/js/byte-bpe.test.js compares the
// whole tokenizer with an independent implementation on GPT-2's own vocabulary and merges.
#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <set>

#include "core/error.h"
#include "text/byte_bpe_alphabet.h"
#include "text/byte_bpe_decode.h"
#include "text/byte_bpe_pretokenizer.h"
#include "text/byte_bpe_tokenizer.h"
#include "text/utf8.h"

namespace attnscope {
namespace {

using Strings = std::vector<std::string>;

Strings pretokens(const std::string& text) {
  Strings out;
  for (std::string_view t : gpt2_pretokenize(text)) out.emplace_back(t);
  return out;
}

// The message of what `f` throws, which must be an E.
template <class E, class F>
std::string message_of(F f) {
  std::string message = "(nothing thrown)";
  EXPECT_THROW(
      {
        try {
          f();
        } catch (const E& e) {
          message = e.what();
          throw;
        }
      },
      E);
  return message;
}

TEST(ByteBpeAlphabet, MapsEachByteToOnePrintableCodePoint) {
  const auto& cs = bytes_to_unicode();
  EXPECT_EQ(cs.size(), 256u);
  EXPECT_EQ(std::set<char32_t>(cs.begin(), cs.end()).size(), 256u);
  const std::pair<int, char32_t> known[] = {
      // Printable bytes stand for themselves.
      {'A', U'A'}, {'!', U'!'}, {'~', U'~'}, {0xA1, U'\u00A1'}, {0xE9, U'\u00E9'}, {0xFF, U'\u00FF'},
      // The 68 others, in order, from U+0100: NUL, newline, space ("Ġ"), DEL, 0x80, NBSP, soft hyphen.
      {0x00, U'\u0100'}, {'\n', U'\u010A'}, {' ', U'\u0120'}, {0x7F, U'\u0121'}, {0x80, U'\u0122'},
      {0xA0, U'\u0142'}, {0xAD, U'\u0143'}};
  for (const auto& [byte, code] : known) EXPECT_EQ(cs[byte], code) << "byte " << byte;
  for (int b = 0; b < 256; ++b) EXPECT_EQ(unicode_to_byte(cs[b]), b);
  EXPECT_EQ(unicode_to_byte(U' '), -1);
  EXPECT_EQ(unicode_to_byte(U'\u00AD'), -1);
  EXPECT_EQ(unicode_to_byte(U'\u0144'), -1);
  EXPECT_EQ(unicode_to_byte(U'\u2581'), -1);
}

TEST(ByteBpePretokenizer, SplitsAsGpt2sRegex) {
  EXPECT_EQ(pretokens(""), Strings{});
  EXPECT_EQ(pretokens("Hello world"), (Strings{"Hello", " world"}));
  EXPECT_EQ(pretokens("it's they'll we'd you're I've don't I'm"),
            (Strings{"it", "'s", " they", "'ll", " we", "'d", " you", "'re", " I", "'ve", " don", "'t", " I", "'m"}));
  // Contractions are case-sensitive: "'S" is punctuation, then a word.
  EXPECT_EQ(pretokens("IT'S"), (Strings{"IT", "'", "S"}));
  EXPECT_EQ(pretokens("x''s 'sx"), (Strings{"x", "''", "s", " '", "sx"}));
  EXPECT_EQ(pretokens("123 4567x"), (Strings{"123", " 4567", "x"}));
  EXPECT_EQ(pretokens("hello!!! ?("), (Strings{"hello", "!!!", " ?("}));
  // A run of white space leaves its last character to the word after it, unless the text ends.
  EXPECT_EQ(pretokens("a  b"), (Strings{"a", " ", " b"}));
  EXPECT_EQ(pretokens("a   \n\nb  "), (Strings{"a", "   \n", "\n", "b", "  "}));
  EXPECT_EQ(pretokens("a\tb"), (Strings{"a", "\t", "b"}));
  EXPECT_EQ(pretokens("a \t!"), (Strings{"a", " ", "\t", "!"}));
  EXPECT_EQ(pretokens("a  \n"), (Strings{"a", "  \n"}));
  // Only U+0020 joins the word after it; other white space stands alone.
  EXPECT_EQ(pretokens("\u00A0a \u3000b"), (Strings{"\u00A0", "a", " ", "\u3000", "b"}));
  // Letters of any script; numbers of any kind (N*); marks (M*) and symbols are neither.
  EXPECT_EQ(pretokens("caf\u00E9 \u00FCber \u65E5\u672C\u8A9E\u3067\u3059"),
            (Strings{"caf\u00E9", " \u00FCber", " \u65E5\u672C\u8A9E\u3067\u3059"}));
  EXPECT_EQ(pretokens("x\u00B2 \u0663\u2167"), (Strings{"x", "\u00B2", " \u0663\u2167"}));
  EXPECT_EQ(pretokens("e\u0301t\u00E9"), (Strings{"e", "\u0301", "t\u00E9"}));
  EXPECT_EQ(pretokens(" \U0001F600\U0001F600 a"), (Strings{" \U0001F600\U0001F600", " a"}));
  // White_Space is the `regex` module's \s: U+0085 is in it, U+FEFF and U+001C are not.
  EXPECT_EQ(pretokens("a \u0085b"), (Strings{"a", " ", "\u0085", "b"}));
  EXPECT_EQ(pretokens(" \uFEFFb"), (Strings{" \uFEFF", "b"}));
  EXPECT_EQ(pretokens("a \x1C"), (Strings{"a", " \x1C"}));
  // A byte that is not UTF-8 is a character of its own, neither letter, number nor space.
  EXPECT_EQ(pretokens("a\xFF\xFE b\xC3"), (Strings{"a", "\xFF\xFE", " b", "\xC3"}));
}

// Whatever the bytes: the pre-tokens are non-empty and together the text, and with every byte's
// symbol in the vocabulary the pieces decode back to it (ill-formed UTF-8 as U+FFFD).
TEST(ByteBpePretokenizer, CoversAnyBytes) {
  Strings alphabet;
  for (char32_t c : bytes_to_unicode()) alphabet.push_back(encode_utf8(c));
  const ByteBpeTokenizer bytes_only({}, Vocabulary(alphabet));
  std::mt19937 random(7);
  const std::string pool[] = {" ", "  ", "\n", "\t", "a", "Z", "'", "'s", "1", "!", "\xC3\xA9", "\xE2\x82\xAC",
                              "\xF0\x9F\x98\x80", "\xC2\x85", "\xEF\xBB\xBF", "\xCC\x81", "\xFF", "\xE2\x82", "\x80"};
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    for (int n = random() % 12; n > 0; --n) text += pool[random() % std::size(pool)];
    std::string joined;
    for (std::string_view t : gpt2_pretokenize(text)) {
      EXPECT_FALSE(t.empty());
      joined += t;
    }
    EXPECT_EQ(joined, text);
    EXPECT_EQ(bytes_only.join(bytes_only.split(text)), utf8_with_replacements(text));
  }
}

// A vocabulary of `pieces` (ids in order) and a tokenizer over it.
ByteBpeTokenizer tokenizer(const Strings& merges, const Strings& pieces) {
  return ByteBpeTokenizer(merges, Vocabulary(pieces));
}

TEST(ByteBpeTokenizer, MergesTheLowestRankedPairFirstAndAllItsOccurrences) {
  const auto t = tokenizer({"\u0120 t", "h e", "\u0120t he", "a a", "b c", "a b"},
                           {"\u0120", "t", "h", "e", "a", "b", "c", "\u0120t", "he", "\u0120the", "aa", "bc", "ab"});
  EXPECT_EQ(t.split("the the"), (Strings{"t", "he", "\u0120the"}));
  EXPECT_EQ(t.split("aaa aaaa"), (Strings{"aa", "a", "\u0120", "aa", "aa"}));
  EXPECT_EQ(t.split("abc"), (Strings{"a", "bc"}));  // "b c" outranks "a b"
  EXPECT_EQ(t.split(""), Strings{});
  EXPECT_EQ(t.join(t.split("the aaa abc")), "the aaa abc");
}

TEST(ByteBpeTokenizer, IsMadeFromTheModelFilesSpec) {
  const Vocabulary vocab(Strings{"a", "b", "ab"});
  const auto t = Tokenizer::from_json(R"({"type": "byte_bpe", "merges": ["a b"]})", vocab);
  EXPECT_EQ(t->split("abba"), (Strings{"ab", "b", "a"}));
  EXPECT_EQ(t->to_json(), R"({"merge_count":1,"type":"byte_bpe"})");
  EXPECT_EQ(message_of<ModelFileError>([&] { Tokenizer::from_json(R"({"type": "byte_bpe"})", vocab); }),
            "invalid model file: byte_bpe tokenizer metadata needs an array field 'merges'");
  EXPECT_EQ(message_of<ModelFileError>([&] { Tokenizer::from_json(R"({"type": "byte_bpe", "merges": [1]})", vocab); }),
            "invalid model file: byte_bpe merges must be strings");
  EXPECT_EQ(message_of<ModelFileError>([&] { Tokenizer::from_json(R"({"type": "byte_bpe", "merges": []})"); }),
            "invalid model file: a byte_bpe tokenizer needs the model's vocabulary");
}

TEST(ByteBpeTokenizer, RefusesAMergeThatIsNotTwoSymbols) {
  const Strings pieces{"a", "b", "c", "ab", "abc"};
  for (const std::string& m : {"ab", "a b c", "a  b", " ab", "ab ", ""})
    EXPECT_EQ(message_of<ModelFileError>([&] { tokenizer({"a b", m}, pieces); }),
              "invalid model file: byte_bpe merge 1 '" + m + "' is not two symbols 'left right'");
}

TEST(ByteBpeTokenizer, RefusesAMergeOutsideTheVocabulary) {
  EXPECT_EQ(message_of<ModelFileError>([] { tokenizer({"a b", "ab c"}, {"a", "b", "c", "ab"}); }),
            "invalid model file: byte_bpe merge 1 'ab c': 'abc' is not in the vocabulary");
  EXPECT_EQ(message_of<ModelFileError>([] { tokenizer({"a x"}, {"a", "ax"}); }),
            "invalid model file: byte_bpe merge 0 'a x': 'x' is not in the vocabulary");
}

TEST(ByteBpeTokenizer, RefusesATextWhosePieceIsNotInTheVocabulary) {
  const auto t = tokenizer({"a b"}, {"a", "b", "ab", "\u00C3"});
  EXPECT_EQ(message_of<InputError>([&] { t.split("ab z"); }),
            "byte 0x20 of the text (piece '\u0120') is not in the model's vocabulary, and byte_bpe has no unknown piece");
  EXPECT_EQ(message_of<InputError>([&] { t.split("\u00E9"); }),  // C3 A9: the second byte's piece is missing
            "byte 0xA9 of the text (piece '\u00A9') is not in the model's vocabulary, and byte_bpe has no unknown piece");
}

TEST(ByteBpeDecode, JoinsPiecesThatSplitACharacter) {
  // é = C3 A9 ("Ã" "©"), € = E2 82 AC ("â" "Ĥ" "¬"), 😀 = F0 9F 98 80 ("ð" "Ł" "ĺ" "Ģ").
  EXPECT_EQ(decode_byte_level({"\u00C3", "\u00A9"}), "\u00E9");
  EXPECT_EQ(decode_byte_level({"\u00E2", "\u0124\u00AC", "\u0120x\u010A"}), "\u20AC x\n");
  EXPECT_EQ(decode_byte_level({"\u00F0\u0141", "\u013A", "\u0122"}), "\U0001F600");
  EXPECT_EQ(decode_byte_level({}), "");
}

TEST(ByteBpeDecode, ReplacesWhatIsNotUtf8AsPythonDoes) {
  const std::string r = "\uFFFD";
  // One U+FFFD per maximal prefix of a well-formed sequence: CPython's errors="replace".
  EXPECT_EQ(decode_byte_level({"\u00C3"}), r);
  EXPECT_EQ(decode_byte_level({"\u00E2\u0124"}), r);                       // E2 82
  EXPECT_EQ(decode_byte_level({"\u00F0\u0141\u013A"}), r);                 // F0 9F 98
  EXPECT_EQ(decode_byte_level({"\u00F0\u0141\u013A", "\u00E2\u0124"}), r + r);
  EXPECT_EQ(decode_byte_level({"a", "\u00E2\u0124\u00AC", "b\u00E2"}), "a\u20ACb" + r);
  EXPECT_EQ(utf8_with_replacements("\xED\xA0\x80"), r + r + r);  // a surrogate
  EXPECT_EQ(utf8_with_replacements("\xC0\x80"), r + r);          // an overlong form
  EXPECT_EQ(utf8_with_replacements("\xE0\x80\xAF"), r + r + r);
  EXPECT_EQ(utf8_with_replacements("\xF4\x90\x80\x80"), r + r + r + r);  // past U+10FFFF
  EXPECT_EQ(utf8_with_replacements("\x80z"), r + "z");
}

TEST(ByteBpeDecode, WritesAPieceOutsideTheAlphabetAsItIs) {
  EXPECT_EQ(decode_byte_level({"<|endoftext|>", "\u0120hi"}), "<|endoftext|> hi");
  EXPECT_EQ(decode_byte_level({"\u2581x", "\u0120"}), "\u2581x ");
}

}  // namespace
}  // namespace attnscope
