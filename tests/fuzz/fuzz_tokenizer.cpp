// libFuzzer target: any bytes as a sentence, through UTF-8 decoding, normalisation, the word
// tokenizer (every flag combination), the BPE tokenizer (the golden merges, and merges taken
// from the input itself: "merge\nmerge\n...\0text"), the WordPiece tokenizer (the golden
// vocabulary, uncased and cased: every piece is in the vocabulary, non-empty, without white space)
// and GPT-2's byte-level BPE (the byte alphabet plus a few merges: the pieces' bytes are the
// text's bytes, in order, and joining them gives the text back, ill-formed UTF-8 replaced).
//
// Checked for every input: decoded code points are Unicode scalar values and re-encode to valid
// UTF-8; pieces are non-empty and free of whitespace; word pieces and BPE pieces glue back to the
// normalised text; vocabulary ids stay inside the vocabulary; BPE's merge by priority queue
// gives what the plain loop gives; split_within agrees with split at the exact piece count and
// refuses one fewer, with at most one piece past the limit. Malformed merges must be a
// ModelFileError; nothing else may be thrown.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "fuzz_check.h"
#include "text/bpe_tokenizer.h"
#include "text/byte_bpe_alphabet.h"
#include "text/byte_bpe_decode.h"
#include "text/byte_bpe_pretokenizer.h"
#include "text/byte_bpe_tokenizer.h"
#include "text/normalize.h"
#include "text/tokenizer.h"
#include "text/utf8.h"
#include "text/word_tokenizer.h"
#include "text/wordpiece_tokenizer.h"

using namespace attnscope;

namespace {

const std::string kWordStart = "\u2581";

bool is_scalar_value(char32_t c) { return c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF); }

bool has_space(const std::string& s) {
  for (char ch : s)
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f') return true;
  return false;
}

// The normalised text: words joined by single spaces (models/FORMAT.md, "tokenizer").
std::string normalised(const std::string& text, bool lowercase) {
  std::string out;
  for (const std::u32string& w : split_words(text, lowercase)) out += (out.empty() ? "" : " ") + encode_utf8(w);
  return out;
}

struct Golden {
  std::unique_ptr<BpeTokenizer> bpe;
  bool lowercase = false;
  Vocabulary vocab;
};

const Golden& golden() {
  static const Golden g = [] {
    std::ifstream in(std::string(ATTNSCOPE_GOLDEN_DIR) + "/tokenizer_bpe.json");
    FUZZ_CHECK(in.good());
    const nlohmann::json j = nlohmann::json::parse(in);
    Golden out;
    out.bpe.reset(dynamic_cast<BpeTokenizer*>(Tokenizer::from_json(j["tokenizer"].dump()).release()));
    FUZZ_CHECK(out.bpe != nullptr);
    out.lowercase = j["tokenizer"]["lowercase"].get<bool>();
    out.vocab = Vocabulary(j["vocab"].get<std::vector<std::string>>());
    return out;
  }();
  return g;
}

void check_utf8(const std::string& text) {
  const std::u32string cps = decode_utf8(text);
  FUZZ_CHECK(cps.size() <= text.size());
  for (char32_t c : cps) FUZZ_CHECK(is_scalar_value(c));
  const std::string again = encode_utf8(cps);
  FUZZ_CHECK(decode_utf8(again) == cps);  // valid UTF-8 survives a round trip unchanged
  FUZZ_CHECK(encode_utf8(decode_utf8(again)) == again);
}

void check_pieces(const std::vector<std::string>& pieces) {
  for (const std::string& p : pieces) {
    FUZZ_CHECK(!p.empty());
    FUZZ_CHECK(!has_space(p));
  }
}

// split_within against split: all pieces at the exact limit; one fewer refused, with some first
// pieces and at most one past the limit.
void check_limit(const Tokenizer& t, const std::string& text, const std::vector<std::string>& pieces) {
  std::vector<std::string> within;
  FUZZ_CHECK(t.split_within(text, pieces.size(), within));
  FUZZ_CHECK(within == pieces);
  if (pieces.empty()) return;
  for (std::size_t limit : {pieces.size() - 1, pieces.size() / 2}) {
    within.clear();
    FUZZ_CHECK(!t.split_within(text, limit, within));
    FUZZ_CHECK(within.size() <= limit + 1);
    FUZZ_CHECK(std::equal(within.begin(), within.end(), pieces.begin()));
  }
}

void check_word(const std::string& text) {
  for (bool lowercase : {false, true}) {
    const WordTokenizer plain(lowercase, false);
    const std::vector<std::string> pieces = plain.split(text);
    check_pieces(pieces);
    check_limit(plain, text, pieces);
    FUZZ_CHECK(plain.join(pieces) == normalised(text, lowercase));
    const WordTokenizer punct(lowercase, true);
    const std::vector<std::string> cut = punct.split(text);
    check_pieces(cut);
    check_limit(punct, text, cut);
    std::string glued, want;
    for (const std::string& p : cut) glued += p;
    for (const std::string& p : pieces) want += p;
    FUZZ_CHECK(glued == want);  // punctuation splitting only adds cuts
  }
}

void check_bpe(const BpeTokenizer& bpe, bool lowercase, const std::string& text, const Vocabulary* vocab) {
  const std::vector<std::string> pieces = bpe.split(text);
  check_limit(bpe, text, pieces);
  for (const std::u32string& w : split_words(text, lowercase)) FUZZ_CHECK(bpe.split_word(w) == bpe.split_word_reference(w));
  check_pieces(pieces);
  std::string glued, want;
  for (const std::string& p : pieces) glued += p;
  for (const std::u32string& w : split_words(text, lowercase)) want += kWordStart + encode_utf8(w);
  FUZZ_CHECK(glued == want);  // merges never drop, add or reorder characters
  // Detokenisation turns every U+2581 into a space, so a text that contains one cannot come back.
  if (text.find(kWordStart) == std::string::npos) FUZZ_CHECK(bpe.join(pieces) == normalised(text, lowercase));
  if (vocab) {
    const Encoded e = encode(bpe, *vocab, text, 1);
    FUZZ_CHECK(e.ids.size() == pieces.size());
    for (int id : e.ids) FUZZ_CHECK(id >= 0 && id < vocab->size());
    FUZZ_CHECK(e.unknown.size() <= e.ids.size());
  }
}

struct WordPieceGolden {
  Vocabulary vocab;
  std::vector<std::unique_ptr<Tokenizer>> tokenizers;  // one per spec of the golden
};

const WordPieceGolden& wordpiece_golden() {
  static const WordPieceGolden g = [] {
    std::ifstream in(std::string(ATTNSCOPE_GOLDEN_DIR) + "/bert/wordpiece.json");
    FUZZ_CHECK(in.good());
    const nlohmann::json j = nlohmann::json::parse(in);
    WordPieceGolden out;
    out.vocab = Vocabulary(j["vocab"].get<std::vector<std::string>>());
    for (const nlohmann::json& s : j["specs"]) out.tokenizers.push_back(Tokenizer::from_json(s["spec"].dump(), out.vocab));
    return out;
  }();
  return g;
}

void check_wordpiece(const std::string& text) {
  const WordPieceGolden& g = wordpiece_golden();
  for (const auto& t : g.tokenizers) {
    const std::vector<std::string> pieces = t->split(text);
    check_pieces(pieces);
    check_limit(*t, text, pieces);
    for (const std::string& p : pieces) FUZZ_CHECK(g.vocab.contains(p));  // [UNK] and the specials are in it
    const Encoded e = encode(*t, g.vocab, text, 1);
    FUZZ_CHECK(e.unknown.empty());
  }
}

// The 256 byte symbols plus merges of GPT-2's first ranks (and longer words built on them), so
// that merging happens on the fuzzed text.
const ByteBpeTokenizer& byte_bpe() {
  static const ByteBpeTokenizer t = [] {
    std::vector<std::string> pieces;
    for (char32_t c : bytes_to_unicode()) pieces.push_back(encode_utf8(c));
    const std::vector<std::string> merges = {"\u0120 t", "\u0120 a", "h e", "i n", "r e", "o n", "\u0120t he",
                                             "e r", "\u0120 s", "a t", "\u0120 w", "\u0120 o", "e n", "\u0120 c"};
    for (const std::string& m : merges) pieces.push_back(m.substr(0, m.find(' ')) + m.substr(m.find(' ') + 1));
    return ByteBpeTokenizer(merges, Vocabulary(pieces));
  }();
  return t;
}

void check_byte_bpe(const std::string& text) {
  const ByteBpeTokenizer& t = byte_bpe();
  const std::vector<std::string> pieces = t.split(text);
  check_limit(t, text, pieces);
  for (std::string_view pretoken : gpt2_pretokenize(text)) FUZZ_CHECK(t.merge(pretoken) == t.merge_reference(pretoken));
  std::string bytes;
  for (const std::string& p : pieces) {
    FUZZ_CHECK(!p.empty());
    for (char32_t c : decode_utf8(p)) {
      const int b = unicode_to_byte(c);
      FUZZ_CHECK(b >= 0);
      bytes += static_cast<char>(b);
    }
  }
  FUZZ_CHECK(bytes == text);  // no byte dropped, added or moved
  FUZZ_CHECK(t.join(pieces) == utf8_with_replacements(text));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  check_utf8(input);
  check_word(input);
  const Golden& g = golden();
  check_bpe(*g.bpe, g.lowercase, input, &g.vocab);
  check_wordpiece(input);
  check_byte_bpe(input);

  // "merges\0text": BPE with merges from the input.
  const std::size_t nul = input.find('\0');
  if (nul != std::string::npos) {
    std::vector<std::string> merges;
    std::size_t start = 0;
    const std::string head = input.substr(0, nul);
    while (start <= head.size()) {
      const std::size_t end = std::min(head.find('\n', start), head.size());
      if (end > start) merges.push_back(head.substr(start, end - start));
      start = end + 1;
    }
    std::unique_ptr<BpeTokenizer> bpe;
    try {
      bpe = std::make_unique<BpeTokenizer>(merges, (size & 1) != 0);
    } catch (const ModelFileError&) {
      return 0;
    }
    check_bpe(*bpe, (size & 1) != 0, input.substr(nul + 1), nullptr);
  }
  return 0;
}
