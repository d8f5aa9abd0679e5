// tokenizer.json read by the engine (src/text/tokenizer_json/) against @huggingface/tokenizers on
// seven fixtures in Hugging Face's layout (GPT-2, Llama 3, Qwen2, Llama 2 / TinyLlama, BERT, T5,
// RoBERTa) and 2,100 strings each: ids, and decoding with and without special tokens, must all
// agree. The fixtures, strings and expected values are written by
// models/goldens/make_tokenizer_json_goldens.mjs. Offsets, which the JS port does not give, are
// checked for their properties on every string and by hand on cases from the tokenizers crate's own
// tests; so are the crate's rules where the JS port reads a file differently (the generator's
// header lists those cases, which its strings avoid).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/quote.h"
#include "test_support.h"
#include "text/byte_bpe_pretokenizer.h"
#include "text/table_limits.h"
#include "text/tokenizer_json/pre_tokenizers.h"
#include "text/tokenizer_json/regex.h"
#include "text/tokenizer_json/tokenizer_json.h"
#include "text/unicode.h"
#include "text/utf8.h"

namespace attnscope {
namespace {

using testing::golden_path;
using testing::json;
using testing::load_json;
using testing::thrown_message;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

std::string show_ids(const TokenizerJson& t, const std::vector<int>& ids) {
  std::string out;
  for (int id : ids) {
    out += std::to_string(id);
    if (id >= 0 && id < t.vocabulary().size()) out += "(" + printable(t.vocabulary().token(id)) + ")";
    out += " ";
  }
  return out;
}

// The test strings of inputs.json for a fixture: its added tokens put in for the placeholders.
std::vector<std::string> inputs_for(const std::vector<std::string>& specials) {
  std::vector<std::string> out;
  const json file = load_json(golden_path("tokenizer_json/inputs.json"));
  for (const json& in : file["inputs"]) {
    if (in.contains("hex")) {
      out.push_back(from_hex(in["hex"]));
      continue;
    }
    const std::string text = in["text"];
    std::string filled;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\x01' && i + 1 < text.size()) {
        filled += specials[static_cast<std::size_t>(text[i + 1] - '0') % specials.size()];
        ++i;
      } else {
        filled += text[i];
      }
    }
    out.push_back(filled);
  }
  return out;
}

// For a Unigram fixture: whether two segmentations are a tie, the same text in pieces whose scores
// sum to the same value up to rounding. The JS port finds the best segmentation with the lattice
// Viterbi (the crate's encode_unoptimized), comparing each path once the next piece's score is
// added; the crate by default (encode_optimized, which this engine follows) compares the paths'
// sums where they meet. Where two segmentations tie in exact arithmetic, rounding can break the
// tie one way in one and the other way in the other ("supersuper..." as 40 + 80 or 80 + 40
// characters): such a string is counted apart, not as agreement, and must stay rare.
bool unigram_tie(const json& file, const TokenizerJson& t, const std::vector<int>& a, const std::vector<int>& b) {
  if (!file["model"]["vocab"].is_array()) return false;
  const json& vocab = file["model"]["vocab"];
  const auto text_and_score = [&](const std::vector<int>& ids, double& score) {
    std::string text;
    score = 0;
    for (int id : ids) {
      text += t.vocabulary().token(id);
      score += vocab[static_cast<std::size_t>(id)][1].get<double>();
    }
    return text;
  };
  double sa, sb;
  const bool same_text = text_and_score(a, sa) == text_and_score(b, sb);
  return same_text && std::abs(sa - sb) <= 1e-9 * std::max(1.0, std::abs(sa));
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, AgreesWithTheReferenceOnEveryString) {
  const std::string kind = GetParam();
  const std::string file = read_file(golden_path("tokenizer_json/" + kind + ".tokenizer.json"));
  const auto t = TokenizerJson::from_json(file);
  const json parsed = json::parse(file);
  std::vector<std::string> specials;
  for (const auto& a : t->added_tokens()) specials.push_back(a.content);
  const std::vector<std::string> inputs = inputs_for(specials);
  const json cases = load_json(golden_path("tokenizer_json/" + kind + ".expected.json"))["cases"];
  ASSERT_EQ(cases.size(), inputs.size());
  ASSERT_GE(inputs.size(), 2000u);
  std::size_t agree = 0, ties = 0, shown = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const json& c = cases[i];
    const auto e = t->encode(inputs[i], true);
    const std::vector<int> want = c["ids"];
    std::string why;
    if (e.ids != want && unigram_tie(parsed, *t, e.ids, want)) {
      ++ties;
      std::printf("[ tokenizer.json ] %s string %zu: a Unigram tie broken the other way\n  JS   %s\n  here %s\n",
                  kind.c_str(), i, show_ids(*t, want).c_str(), show_ids(*t, e.ids).c_str());
      continue;
    }
    if (e.ids != want) {
      why = "ids\n  want " + show_ids(*t, want) + "\n  got  " + show_ids(*t, e.ids);
    } else if (!want.empty()) {
      const std::string decoded = c["decoded"];
      const std::string skipped = c.value("decoded_skipping_special", decoded);
      const std::string got = t->decode(e.ids, false), got_skipped = t->decode(e.ids, true);
      if (got != decoded) why = "decode\n  want " + quote(decoded) + "\n  got  " + quote(got);
      else if (got_skipped != skipped) why = "decode skipping special tokens\n  want " + quote(skipped) + "\n  got  " + quote(got_skipped);
    }
    if (why.empty()) {
      ++agree;
    } else if (shown++ < 5) {
      ADD_FAILURE() << kind << " string " << i << " " << quote(inputs[i]) << ": " << why;
    }
  }
  std::printf("[ tokenizer.json ] %s: %zu of %zu strings agree with @huggingface/tokenizers (%zu Unigram ties)\n",
              kind.c_str(), agree, inputs.size(), ties);
  EXPECT_EQ(agree + ties, inputs.size());
  EXPECT_LE(ties, 5u);
}

// Offsets on every string: inside the input, and their ends in order (a begin may step back: a
// lone prefix space trimmed by RoBERTa's processor ends where the word after it begins).
TEST_P(Golden, OffsetsAreInTheInputAndInOrder) {
  const std::string kind = GetParam();
  const auto t = TokenizerJson::from_json(read_file(golden_path("tokenizer_json/" + kind + ".tokenizer.json")));
  std::vector<std::string> specials;
  for (const auto& a : t->added_tokens()) specials.push_back(a.content);
  for (const std::string& input : inputs_for(specials)) {
    const auto e = t->encode(input, false);
    std::size_t last_end = 0;
    for (std::size_t k = 0; k < e.size(); ++k) {
      const auto [begin, end] = e.offsets[k];
      ASSERT_LE(begin, end) << quote(input);
      ASSERT_LE(end, input.size()) << quote(input);
      ASSERT_LE(last_end, end) << quote(input) << " token " << k;
      last_end = end;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TokenizerJson, Golden,
                         ::testing::Values("gpt2", "llama3", "qwen2", "llama2", "bert", "t5", "roberta"));

std::unique_ptr<TokenizerJson> fixture(const std::string& kind) {
  return TokenizerJson::from_json(read_file(golden_path("tokenizer_json/" + kind + ".tokenizer.json")));
}

// Without normalization, a byte-level token that holds whole characters covers exactly the bytes
// it decodes to.
TEST(TokenizerJsonOffsets, ByteLevelTokensCoverTheirOwnText) {
  for (const char* kind : {"gpt2", "llama3"}) {
    const auto t = fixture(kind);
    for (const std::string& input : inputs_for({"<|endoftext|>"})) {
      if (utf8_sequence_length(input, 0) == 0 && !input.empty()) continue;
      const auto e = t->encode(input, false);
      std::size_t covered = 0;
      for (std::size_t k = 0; k < e.size(); ++k) {
        const std::string text = t->decode({e.ids[k]});
        const auto [begin, end] = e.offsets[k];
        if (text.find("\xEF\xBF\xBD") == std::string::npos && input.find("\xEF\xBF\xBD") == std::string::npos)
          ASSERT_EQ(input.substr(begin, end - begin), text) << kind << " " << quote(input) << " token " << k;
        covered = std::max(covered, end);
      }
      ASSERT_EQ(covered, input.size()) << kind << " " << quote(input);
    }
  }
}

// From the crate's tests (pre_tokenizers/byte_level.rs): byte offsets of "Ġmy" etc. include the space.
TEST(TokenizerJsonOffsets, ByteLevelAsTheCrate) {
  const auto t = fixture("gpt2");
  const auto e = t->encode("Hello my friend", false);
  std::vector<std::pair<std::size_t, std::size_t>> words;
  std::string joined;
  for (std::size_t k = 0; k < e.size(); ++k) joined += e.pieces[k];
  EXPECT_EQ(joined, "HelloĠmyĠfriend");
  EXPECT_EQ(e.offsets.front().first, 0u);
  EXPECT_EQ(e.offsets.back().second, 15u);
  // A character cut into two tokens: both cover all of it.
  const auto cut = t->encode("i\xE2\xAD\xA2j", false);  // i⭢j, ⭢ unknown to the merges
  ASSERT_GE(cut.size(), 4u);
  EXPECT_EQ(cut.offsets[1], (std::pair<std::size_t, std::size_t>{1, 4}));
  EXPECT_EQ(cut.offsets[2], (std::pair<std::size_t, std::size_t>{1, 4}));
}

TEST(TokenizerJsonOffsets, SpecialTokensAndNormalizedText) {
  const auto llama3 = fixture("llama3");
  const auto e = llama3->encode("Hi<|eot_id|>there", true);
  EXPECT_EQ(e.pieces.front(), "<|begin_of_text|>");
  EXPECT_EQ(e.offsets.front(), (std::pair<std::size_t, std::size_t>{0, 0}));
  bool found = false;
  for (std::size_t k = 0; k < e.size(); ++k)
    if (e.pieces[k] == "<|eot_id|>") {
      EXPECT_EQ(e.offsets[k], (std::pair<std::size_t, std::size_t>{2, 12}));
      found = true;
    }
  EXPECT_TRUE(found);
  // BERT lower-cases and strips accents; offsets still point at the original bytes.
  const auto bert = fixture("bert");
  const auto b = bert->encode("Café", false);
  ASSERT_FALSE(b.ids.empty());
  EXPECT_EQ(b.offsets.front().first, 0u);
  EXPECT_EQ(b.offsets.back().second, 5u);
  // Invalid UTF-8: one U+FFFD for "\xE2\x82" (a maximal ill-formed part), covering both bytes.
  const auto g = fixture("gpt2")->encode("a\xE2\x82z", false);
  EXPECT_EQ(fixture("gpt2")->decode(g.ids), "a\xEF\xBF\xBDz");
}

// The RoBERTa-style processor trims spaces out of offsets, but not the one it added in front.
TEST(TokenizerJsonOffsets, TrimmedOffsets) {
  const auto t = fixture("roberta");
  const auto e = t->encode("Hello  there", true);
  ASSERT_GE(e.size(), 4u);
  EXPECT_EQ(e.pieces.front(), "<s>");
  EXPECT_EQ(e.offsets[1].first, 0u);  // "ĠHello": the prefix space was added, and stands by H
  const auto last = e.offsets[e.size() - 2];
  EXPECT_EQ(std::string("Hello  there").substr(last.first, last.second - last.first).back(), 'e');
}

// ---- the crate's rules where the JS port differs ------------------------------------------------

std::string minimal(const std::string& parts) {
  // A tokenizer.json with a vocabulary of single characters (a..z, space, apostrophe), no merges,
  // and the given top-level parts.
  json vocab = json::object();
  int id = 0;
  for (char c = 'a'; c <= 'z'; ++c) vocab[std::string(1, c)] = id++;
  for (const char* s : {" ", "'", "A", "S", "T", "\xC5\xBF", "<unk>", "\xE2\x96\x81", "\xE2\x96\x81" "a"}) vocab[s] = id++;
  json j = json::parse(parts);
  if (!j.contains("model")) j["model"] = {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array()}, {"unk_token", "<unk>"}};
  return j.dump();
}

TEST(TokenizerJsonCrateRules, SplitBehaviours) {
  // The crate's own example (normalizer.rs): "The-final--countdown" split on "-".
  const auto run = [](const char* behavior, bool invert) {
    json split = {{"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", behavior}, {"invert", invert}};
    json vocab = json::object();
    for (const char* w : {"The", "-", "final", "--", "countdown", "The-", "final-", "-final", "-countdown", "[UNK]",
                          "final--", "--countdown", "-final-"})
      vocab[w] = static_cast<int>(vocab.size());
    json model = {{"type", "WordPiece"}, {"vocab", vocab}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", "##"}};
    const auto t = TokenizerJson::from_json(json{{"pre_tokenizer", split}, {"model", model}}.dump());
    std::string out;
    for (const std::string& p : t->encode("The-final--countdown", false).pieces) out += "|" + p;
    return out;
  };
  EXPECT_EQ(run("Removed", false), "|The|final|countdown");
  EXPECT_EQ(run("Isolated", false), "|The|-|final|-|-|countdown");
  EXPECT_EQ(run("MergedWithPrevious", false), "|The-|final-|-|countdown");
  EXPECT_EQ(run("MergedWithNext", false), "|The|-final|-|-countdown");
  EXPECT_EQ(run("Contiguous", false), "|The|-|final|--|countdown");
  EXPECT_EQ(run("Removed", true), "|-|-|-");
}

TEST(TokenizerJsonCrateRules, MetaspaceSplitsAtEachReplacement) {
  // metaspace.rs's "Hey   friend!": ▁Hey ▁ ▁ ▁friend! (JS keeps one piece).
  json vocab = json::object();
  for (const char* w : {"\xE2\x96\x81Hey", "\xE2\x96\x81", "\xE2\x96\x81" "friend!", "<unk>"}) vocab[w] = static_cast<int>(vocab.size());
  json model = {{"type", "WordPiece"}, {"vocab", vocab}, {"unk_token", "<unk>"}};
  json meta = {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"prepend_scheme", "always"}, {"split", true}};
  const auto t = TokenizerJson::from_json(json{{"pre_tokenizer", meta}, {"model", model}, {"decoder", meta}}.dump());
  const auto e = t->encode("Hey   friend!", false);
  EXPECT_EQ(e.pieces, (std::vector<std::string>{"\xE2\x96\x81Hey", "\xE2\x96\x81", "\xE2\x96\x81", "\xE2\x96\x81" "friend!"}));
  EXPECT_EQ(e.offsets, (std::vector<std::pair<std::size_t, std::size_t>>{{0, 3}, {3, 4}, {4, 5}, {5, 13}}));
  EXPECT_EQ(t->decode(e.ids), "Hey   friend!");
}

TEST(TokenizerJsonCrateRules, CaseInsensitiveContractionsFoldUnicode) {
  // Oniguruma folds ſ (U+017F) to s: "'ſ" is a contraction under (?i:'s|...), as "'S" is.
  tokenizer_json::Regex re("(?i:'s|'t)|\\p{L}+|[^\\p{L}]", "test");
  const std::u32string text = U"it'S it'\u017F it's";
  std::vector<std::u32string> got;
  for (const auto& m : re.find_all(text)) got.push_back(text.substr(m.begin, m.end - m.begin));
  EXPECT_EQ(got, (std::vector<std::u32string>{U"it", U"'S", U" ", U"it", U"'\u017F", U" ", U"it", U"'s"}));
}

TEST(TokenizerJsonCrateRules, Gpt2PatternUsesWhiteSpaceProperty) {
  // \s is White_Space: U+0085 is one, U+FEFF is not (JS's \s says the opposite).
  tokenizer_json::Regex re(tokenizer_json::kGpt2Pattern, "test");
  const std::u32string text = U"a\u0085\u0085b \uFEFFc";
  std::vector<std::u32string> got;
  for (const auto& m : re.find_all(text)) got.push_back(text.substr(m.begin, m.end - m.begin));
  EXPECT_EQ(got, (std::vector<std::u32string>{U"a", U"\u0085", U"\u0085", U"b", U" \uFEFF", U"c"}));
}

TEST(TokenizerJsonCrateRules, LowercaseHasNoFinalSigma) {
  json norm = {{"type", "Lowercase"}};
  json vocab = {{"<unk>", 0}, {"\xCF\x83", 1}, {"\xCF\x82", 2}};  // σ ς
  json model = {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array()}, {"unk_token", "<unk>"}};
  const auto t = TokenizerJson::from_json(json{{"normalizer", norm}, {"model", model}}.dump());
  EXPECT_EQ(t->encode("\xCE\xA3\xCE\xA3", false).ids, (std::vector<int>{1, 1}));  // ΣΣ -> σσ
}

// The crate's clean-up runs on each token (" do not" -> " don't" only inside one token), as the
// JS port's WordPiece decoder does; the JS port's Tokenizer.decode then cleans the whole text up
// by default (clean_up_tokenization_spaces, which the goldens turn off: the crate has no such step).
TEST(TokenizerJsonCrateRules, WordPieceCleanupIsPerToken) {
  json vocab = {{"[UNK]", 0}, {"i", 1}, {"do", 2}, {"not", 3}, {".", 4}, {"x do not", 5}};
  json model = {{"type", "WordPiece"}, {"vocab", vocab}, {"unk_token", "[UNK]"}};
  json decoder = {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}};
  const auto t = TokenizerJson::from_json(json{{"model", model}, {"decoder", decoder}}.dump());
  EXPECT_EQ(t->decode({1, 2, 3, 4}), "i do not.");
  EXPECT_EQ(t->decode({1, 5, 4}), "i x don't.");
}

TEST(TokenizerJsonCrateRules, AddedTokenOptions) {
  // added_vocabulary.rs's options_use_cases: "my" (lstrip, rstrip) takes in its spaces; "ony"
  // (single_word) is not split out of "anthony".
  json vocab = json::object();
  for (const char* w : {"[UNK]", "is", "anthony", "name", "my", "ony", "[CLS]", "[SEP]"}) vocab[w] = static_cast<int>(vocab.size());
  json model = {{"type", "WordPiece"}, {"vocab", vocab}, {"unk_token", "[UNK]"}};
  json added = json::array({{{"id", 4}, {"content", "my"}, {"lstrip", true}, {"rstrip", true}, {"normalized", true}},
                            {{"id", 3}, {"content", "name"}, {"normalized", true}},
                            {{"id", 5}, {"content", "ony"}, {"single_word", true}, {"normalized", true}},
                            {{"id", 6}, {"content", "[CLS]"}, {"special", true}},
                            {{"id", 7}, {"content", "[SEP]"}, {"special", true}}});
  const auto t = TokenizerJson::from_json(json{{"normalizer", {{"type", "Lowercase"}}},
                                                {"pre_tokenizer", {{"type", "WhitespaceSplit"}}},
                                                {"model", model},
                                                {"added_tokens", added}}.dump());
  const auto e = t->encode("[CLS] My name is Anthony [SEP]", false);
  EXPECT_EQ(e.pieces, (std::vector<std::string>{"[CLS]", "my", "name", "is", "anthony", "[SEP]"}));
  EXPECT_EQ(e.offsets[1], (std::pair<std::size_t, std::size_t>{5, 9}));  // " My "
  EXPECT_EQ(t->decode(e.ids, true), "my name is anthony");
}

TEST(TokenizerJsonCrateRules, BpeContinuingSubwordPrefixAndUnigramByteFallback) {
  json vocab = {{"<unk>", 0}, {"u", 1}, {"##n", 2}, {"##r", 3}, {"un", 4}, {"unr", 5}};
  json model = {{"type", "BPE"}, {"vocab", vocab}, {"merges", {"u ##n", "un ##r"}}, {"unk_token", "<unk>"},
                {"continuing_subword_prefix", "##"}};
  const auto bpe = TokenizerJson::from_json(json{{"model", model}}.dump());
  EXPECT_EQ(bpe->encode("unr", false).pieces, (std::vector<std::string>{"unr"}));
  EXPECT_EQ(bpe->encode("unrx", false).pieces, (std::vector<std::string>{"unr", "<unk>"}));

  json pieces = json::array({{"<unk>", 0.0}, {"a", -1.0}, {"<0xC3>", -2.0}, {"<0xA9>", -2.0}});
  json unigram = {{"type", "Unigram"}, {"vocab", pieces}, {"unk_id", 0}, {"byte_fallback", true}};
  const auto t = TokenizerJson::from_json(json{{"model", unigram}}.dump());
  const auto e = t->encode("a\xC3\xA9", false);  // é falls back to its bytes
  EXPECT_EQ(e.pieces, (std::vector<std::string>{"a", "<0xC3>", "<0xA9>"}));
  EXPECT_EQ(e.ids, (std::vector<int>{1, 2, 3}));
  // A run of unknown characters falls back only when every byte has a token: "éz" lacks <0x7A>.
  const auto run = t->encode("a\xC3\xA9z", false);
  EXPECT_EQ(run.pieces, (std::vector<std::string>{"a", "\xC3\xA9z"}));
  EXPECT_EQ(run.ids, (std::vector<int>{1, 0}));
}

TEST(TokenizerJsonTokenizer, ImplementsTheTokenizerInterface) {
  const auto t = fixture("llama2");
  std::vector<std::string> pieces;
  EXPECT_TRUE(t->split_within("A man is riding a bike.", 100, pieces));
  EXPECT_EQ(t->join(pieces), "A man is riding a bike.");
  std::vector<std::string> few;
  EXPECT_FALSE(t->split_within("A man is riding a bike.", 2, few));
  EXPECT_LE(few.size(), 100u);
  EXPECT_EQ(t->vocabulary().token(1), "<s>");
  const Encoded enc = attnscope::encode(*t, t->vocabulary(), "A man", 0);
  EXPECT_EQ(enc.ids, t->encode("A man", false).ids);
}

// ---- the regex matcher -----------------------------------------------------------------------------

// GPT-2's pattern through the regex matcher and through the engine's hand-written reading of it
// (text/byte_bpe_pretokenizer.h): the same pre-tokens on every test string.
TEST(TokenizerJsonRegex, Gpt2PatternAgreesWithTheHandWrittenOne) {
  tokenizer_json::Regex re(tokenizer_json::kGpt2Pattern, "test");
  std::size_t checked = 0;
  for (const std::string& input : inputs_for({"<|endoftext|>"})) {
    if (decode_utf8(input).find(0xFFFD) != std::u32string::npos) continue;  // the hand-written one keeps bad bytes apart
    std::vector<std::string> want;
    for (std::string_view p : gpt2_pretokenize(input)) want.emplace_back(p);
    const std::u32string text = decode_utf8(input);
    std::vector<std::string> got;
    for (const auto& m : re.find_all(text)) got.push_back(encode_utf8(text.substr(m.begin, m.end - m.begin)));
    ASSERT_EQ(got, want) << quote(input);
    ++checked;
  }
  EXPECT_GT(checked, 1900u);
}

TEST(TokenizerJsonRegex, Constructs) {
  const auto all = [](const char* pattern, const std::u32string& text) {
    tokenizer_json::Regex re(pattern, "test");
    std::vector<std::u32string> out;
    for (const auto& m : re.find_all(text)) out.push_back(text.substr(m.begin, m.end - m.begin));
    return out;
  };
  using V = std::vector<std::u32string>;
  EXPECT_EQ(all("\\p{N}{1,3}", U"12345678"), (V{U"123", U"456", U"78"}));
  EXPECT_EQ(all("\\p{Lu}\\p{Ll}*", U"HelloWorld ÉCOLE"), (V{U"Hello", U"World", U"É", U"C", U"O", U"L", U"E"}));
  EXPECT_EQ(all("a+?b|c", U"aab c"), (V{U"aab", U"c"}));
  EXPECT_EQ(all("[a-c\\d]+(?=x)", U"ab1x cc"), (V{U"ab1"}));
  EXPECT_EQ(all("(?:ab)*c", U"ababc c"), (V{U"ababc", U"c"}));
  EXPECT_EQ(all("\\x41|\\u0042|\\x{43}|[\\t]", U"ABC\tD"), (V{U"A", U"B", U"C", U"\t"}));
  EXPECT_EQ(all(".", U"a\nb"), (V{U"a", U"b"}));
  EXPECT_EQ(all("\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", U"a  \n\n b   c"), (V{U"  \n\n", U" ", U"  ", U" "}));
  EXPECT_EQ(all("(?i:[a-c]+)", U"AbCd"), (V{U"AbC"}));
}

// ---- hostile files ---------------------------------------------------------------------------------

std::string model_error(const std::string& file) {
  return thrown_message<ModelFileError>([&] { TokenizerJson::from_json(file); });
}

TEST(TokenizerJsonHostile, MalformedJson) {
  EXPECT_NE(model_error("{\"model\": {\"type\": \"BPE\", \"vocab\": {").find("not valid JSON"), std::string::npos);
  EXPECT_NE(model_error("[]").find("must be an object"), std::string::npos);
  EXPECT_NE(model_error("{}").find("needs a field 'model'"), std::string::npos);
  EXPECT_NE(model_error(minimal(R"({"normalizer": {"type": "Lowercase"}, "pre_tokenizer": 7})")).find("pre_tokenizer must be an object"),
            std::string::npos);
  EXPECT_NE(model_error(minimal(R"({"pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": "yes"}})"))
                .find("pre_tokenizer.add_prefix_space must be true or false"),
            std::string::npos);
  EXPECT_NE(model_error(R"({"model": {"type": "BPE", "vocab": {"a": "zero"}, "merges": []}})").find("model.vocab"),
            std::string::npos);
}

TEST(TokenizerJsonHostile, UnknownComponentsAreNamedWithTheirPath) {
  const std::string e = model_error(minimal(
      R"({"pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Whitespace"}, {"type": "UnicodeScripts"}]}})"));
  EXPECT_NE(e.find("pre_tokenizer.pretokenizers[1] has type 'UnicodeScripts', which is not supported"), std::string::npos) << e;
  EXPECT_NE(model_error(minimal(R"({"normalizer": {"type": "Precompiled"}})")).find("normalizer has type 'Precompiled'"),
            std::string::npos);
  EXPECT_NE(model_error(minimal(R"({"decoder": {"type": "Nope"}})")).find("decoder has type 'Nope'"), std::string::npos);
  EXPECT_NE(model_error(minimal(R"({"post_processor": {"type": "Nope"}})")).find("post_processor has type 'Nope'"),
            std::string::npos);
  EXPECT_NE(model_error(R"({"model": {"type": "WordLevel", "vocab": {}}})").find("model has type 'WordLevel'"),
            std::string::npos);
  EXPECT_NE(model_error(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "dropout": 0.1}})").find("dropout"),
            std::string::npos);
}

TEST(TokenizerJsonHostile, UnsupportedRegexConstructsAreNamed) {
  const auto regex_error = [](const std::string& pattern) {
    json split = {{"type", "Split"}, {"pattern", {{"Regex", pattern}}}, {"behavior", "Isolated"}};
    return model_error(minimal(json{{"pre_tokenizer", split}}.dump()));
  };
  EXPECT_NE(regex_error("(?<=a)b").find("lookbehind"), std::string::npos);
  EXPECT_NE(regex_error("\\bword").find("word boundary"), std::string::npos);
  EXPECT_NE(regex_error("^a").find("anchor"), std::string::npos);
  EXPECT_NE(regex_error("(a)\\1").find("back-reference"), std::string::npos);
  EXPECT_NE(regex_error("\\p{Han}").find("\\p{Han}"), std::string::npos);
  EXPECT_NE(regex_error("a++").find("possessive"), std::string::npos);
  EXPECT_NE(regex_error("[[:alpha:]]").find("POSIX"), std::string::npos);
  EXPECT_NE(regex_error("(?>a)").find("atomic"), std::string::npos);
  EXPECT_NE(regex_error("(a").find("unclosed group"), std::string::npos);
  EXPECT_NE(regex_error("(a*)*").find("can match nothing"), std::string::npos);
  EXPECT_NE(regex_error("a{2000}").find("more than 1000"), std::string::npos);
  const std::string e = regex_error("[a&&b]");
  EXPECT_NE(e.find("pre_tokenizer.pattern"), std::string::npos) << e;
}

TEST(TokenizerJsonHostile, CatastrophicBacktrackingThrowsInsteadOfHanging) {
  json split = {{"type", "Split"}, {"pattern", {{"Regex", "(a|aa)+b"}}}, {"behavior", "Isolated"}};
  const auto t = TokenizerJson::from_json(minimal(json{{"pre_tokenizer", split}}.dump()));
  const std::string e = thrown_message<InputError>([&] { t->encode(std::string(60, 'a'), false); });
  EXPECT_NE(e.find("backtracks too much"), std::string::npos) << e;
}

TEST(TokenizerJsonHostile, TablesAndIds) {
  // A vocabulary id past the engine's table limit, a merge naming an unknown piece, an unknown
  // unk_token, repeated ids.
  EXPECT_NE(model_error(R"({"model": {"type": "BPE", "vocab": {"a": 99999999}, "merges": []}})").find("outside [0, 2097152)"),
            std::string::npos);
  EXPECT_NE(model_error(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a c"]}})")
                .find("model.merges[0] names 'c', which is not in the vocabulary"),
            std::string::npos);
  EXPECT_NE(model_error(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]}})")
                .find("names 'ab', which is not in the vocabulary"),
            std::string::npos);
  EXPECT_NE(model_error(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "unk_token": "<unk>"}})")
                .find("model.unk_token '<unk>' is not in the vocabulary"),
            std::string::npos);
  EXPECT_NE(model_error(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 0}, "merges": []}})").find("gives the id 0 to both"),
            std::string::npos);
  EXPECT_NE(model_error(R"({"model": {"type": "Unigram", "vocab": [["a", -1], ["a", -2]], "unk_id": 0}})").find("repeats"),
            std::string::npos);
  EXPECT_NE(model_error(R"({"model": {"type": "Unigram", "vocab": [["a", -1]], "unk_id": 5}})").find("model.unk_id"),
            std::string::npos);
  // Huge counts: an array longer than the table limit is refused before it is parsed.
  std::string huge = R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [)";
  for (std::size_t i = 0; i <= kMaxMerges; ++i) huge += i ? ",0" : "0";
  huge += "]}}";
  EXPECT_NE(model_error(huge).find("an array of more than"), std::string::npos);
}

TEST(TokenizerJsonHostile, DecodeRefusesIdsOutOfRange) {
  const auto t = fixture("gpt2");
  const std::string e = thrown_message<IndexError>([&] { t->decode({1, 5000}); });
  EXPECT_NE(e.find("token id 5000 is not in the tokenizer's vocabulary"), std::string::npos) << e;
  EXPECT_NE(thrown_message<IndexError>([&] { t->decode({-1}); }).find("token id -1"), std::string::npos);
}

// ---- Unicode normalization ---------------------------------------------------------------------------

TEST(TokenizerJsonUnicode, NormalizationForms) {
  using unicode::Form;
  using unicode::normalize;
  EXPECT_EQ(normalize(U"e\u0301", Form::NFC), U"\u00E9");
  EXPECT_EQ(normalize(U"\u00E9", Form::NFD), U"e\u0301");
  EXPECT_EQ(normalize(U"\u212B", Form::NFC), U"\u00C5");                    // Ångström sign
  EXPECT_EQ(normalize(U"o\u0323\u0302", Form::NFC), U"\u1ED9");            // reordered, then composed
  EXPECT_EQ(normalize(U"o\u0302\u0323", Form::NFC), U"\u1ED9");
  EXPECT_EQ(normalize(U"\uFB01", Form::NFKC), U"fi");
  EXPECT_EQ(normalize(U"\u2460", Form::NFKD), U"1");
  EXPECT_EQ(normalize(U"\uAC00", Form::NFD), U"\u1100\u1161");             // Hangul
  EXPECT_EQ(normalize(U"\u1100\u1161\u11A8", Form::NFC), U"\uAC01");
  EXPECT_EQ(normalize(U"\u0958", Form::NFC), U"\u0915\u093C");             // excluded from composition
  std::vector<unicode::Origin> origins;
  EXPECT_EQ(normalize(U"xe\u0301", Form::NFC, &origins), U"x\u00E9");
  ASSERT_EQ(origins.size(), 2u);
  EXPECT_EQ(origins[1].first, 1u);
  EXPECT_EQ(origins[1].last, 2u);
}

}  // namespace
}  // namespace attnscope
