// The SentencePiece unigram tokenizer on small hand-made models whose segmentations are worked
// out by hand in the comments: Viterbi over piece scores, unknown runs, user-defined and unused
// pieces, byte fallback, a hand-built charsmap trie, the white-space options and decoding. The
// comparison with the sentencepiece library itself is sentencepiece_golden_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "sentencepiece_model_writer.h"
#include "text/sentencepiece_tokenizer.h"
#include "text/tokenizer.h"
#include "text/vocabulary.h"

using namespace attnscope;
namespace w = attnscope::spm_writer;

namespace {

const std::string kSpace = "\xE2\x96\x81";  // ▁

std::vector<w::Piece> tiny_pieces() {
  return {
      {"<unk>", 0, w::kUnknown},  // 0
      {"<s>", 0, w::kControl},    // 1
      {"</s>", 0, w::kControl},   // 2
      {kSpace, -2},               // 3
      {kSpace + "a", -1},         // 4
      {"a", -3},                  // 5
      {"b", -2},                  // 6
      {"ab", -2.5f},              // 7
      {kSpace + "ab", -10},       // 8
      {"c", -4},                  // 9
      {"zz", -0.5f, w::kUnused},  // 10: would win for "zz", but unused pieces never match
  };
}

std::vector<int> ids_of(const std::vector<SentencePieceTokenizer::Piece>& pieces) {
  std::vector<int> out;
  for (const auto& p : pieces) out.push_back(p.id);
  return out;
}

std::vector<std::string> texts_of(const std::vector<SentencePieceTokenizer::Piece>& pieces) {
  std::vector<std::string> out;
  for (const auto& p : pieces) out.push_back(p.text);
  return out;
}

}  // namespace

TEST(SentencePiece, ViterbiPicksTheHighestScoringSegmentation) {
  const SentencePieceTokenizer sp(w::model(tiny_pieces()));
  // "▁ab": ▁a + b = -1 - 2 = -3 beats ▁ + ab = -4.5, ▁ + a + b = -7 and ▁ab = -10.
  EXPECT_EQ(ids_of(sp.encode("ab ab")), (std::vector<int>{4, 6, 4, 6}));
  EXPECT_EQ(ids_of(sp.encode("b")), (std::vector<int>{3, 6}));
  EXPECT_TRUE(sp.encode("").empty());
  EXPECT_TRUE(sp.encode("   ").empty());
}

TEST(SentencePiece, UnknownCharactersMergeIntoOnePieceAndUnusedPiecesNeverMatch) {
  const SentencePieceTokenizer sp(w::model(tiny_pieces()));
  // "▁a▁zz▁c": z has no piece (zz is unused), so each z is unknown and the run is one piece.
  const auto pieces = sp.encode("a zz c");
  EXPECT_EQ(ids_of(pieces), (std::vector<int>{4, 3, 0, 3, 9}));
  EXPECT_EQ(texts_of(pieces), (std::vector<std::string>{kSpace + "a", kSpace, "zz", kSpace, "c"}));
  // Two runs separated by a known piece stay two unknown pieces.
  EXPECT_EQ(texts_of(sp.encode("zcz")), (std::vector<std::string>{kSpace, "z", "c", "z"}));
}

TEST(SentencePiece, DecodingDropsTheDummyPrefixAndControlsAndWritesUnknownSurface) {
  const SentencePieceTokenizer sp(w::model(tiny_pieces()));
  // <s> ▁a b <unk> ▁ c </s>
  EXPECT_EQ(sp.decode_ids({1, 4, 6, 0, 3, 9, 2}), "ab \xE2\x81\x87  c");
  // A piece the model lacks is written as it is (an unknown run from encode()).
  EXPECT_EQ(sp.decode_pieces({kSpace + "a", "zz", kSpace, "c"}), "azz c");
  EXPECT_EQ(sp.decode_ids({}), "");
  EXPECT_THROW(sp.decode_ids({11}), InputError);
  EXPECT_THROW(sp.decode_ids({-1}), InputError);
  const SentencePieceTokenizer custom(w::model(tiny_pieces(), w::bytes_field(44, "<?>")));
  EXPECT_EQ(custom.decode_ids({4, 0}), "a<?>");
}

TEST(SentencePiece, UserDefinedPiecesWinAndAreMatchedWhole) {
  std::vector<w::Piece> pieces = {{"<unk>", 0, w::kUnknown}, {kSpace, -1}, {"a", -3}, {"b", -3}, {"ab", 0, w::kUserDefined}};
  const SentencePieceTokenizer sp(w::model(pieces));
  // ab scores 2 * FLT_MIN - 0.1 (no normal piece scores above 0), a + b scores -6.
  EXPECT_EQ(ids_of(sp.encode("ab")), (std::vector<int>{1, 4}));
  EXPECT_EQ(ids_of(sp.encode("aab")), (std::vector<int>{1, 2, 4}));
}

TEST(SentencePiece, ByteFallbackSpellsUnknownCharactersAsUtf8Bytes) {
  std::vector<w::Piece> pieces = {{"<unk>", 0, w::kUnknown}, {kSpace, -1}, {"a", -2}};
  for (int b = 0; b < 256; ++b) pieces.push_back({byte_piece_text(static_cast<unsigned char>(b)), 0, w::kByte});
  const SentencePieceTokenizer sp(w::model(pieces, w::varint_field(35, 1)));
  const int first_byte = 3;
  // "▁a€": € is E2 82 AC.
  EXPECT_EQ(ids_of(sp.encode("a\xE2\x82\xAC")), (std::vector<int>{1, 2, first_byte + 0xE2, first_byte + 0x82, first_byte + 0xAC}));
  EXPECT_EQ(texts_of(sp.encode("\xE2\x82\xAC")), (std::vector<std::string>{kSpace, "<0xE2>", "<0x82>", "<0xAC>"}));
  EXPECT_EQ(sp.decode_ids({1, 2, first_byte + 0xE2, first_byte + 0x82, first_byte + 0xAC}), "a\xE2\x82\xAC");
  // A byte that starts no valid character decodes to U+FFFD, one per byte; the rest survive.
  EXPECT_EQ(sp.decode_ids({first_byte + 0xFF, 2, first_byte + 0xE2, first_byte + 0x82}),
            "\xEF\xBF\xBD" "a" "\xEF\xBF\xBD\xEF\xBF\xBD");
  // The input's own malformed byte is U+FFFD after normalisation: three byte pieces.
  EXPECT_EQ(texts_of(sp.encode("\xFF")), (std::vector<std::string>{kSpace, "<0xEF>", "<0xBF>", "<0xBD>"}));
}

TEST(SentencePiece, WhiteSpaceOptions) {
  const auto normalizer = [](bool dummy, bool remove, bool escape) {
    const std::string spec = w::varint_field(3, dummy) + w::varint_field(4, remove) + w::varint_field(5, escape);
    return SentencePieceTokenizer(w::model(tiny_pieces(), "", spec)).normalize("  a  b  ");
  };
  EXPECT_EQ(normalizer(true, true, true), kSpace + "a" + kSpace + "b");
  EXPECT_EQ(normalizer(true, false, true), kSpace + kSpace + kSpace + "a" + kSpace + kSpace + "b" + kSpace + kSpace);
  EXPECT_EQ(normalizer(false, true, true), "a" + kSpace + "b");
  EXPECT_EQ(normalizer(true, true, false), " a b");
  EXPECT_EQ(normalizer(false, false, false), "  a  b  ");
}

namespace {

// A charsmap with two rules, "A" -> "a" and "AB" -> "x", as a darts-clone double array laid
// out by hand. The root (unit 0) has offset 1, so byte c goes to unit 1 ^ c: 'A' (0x41) -> unit
// 64, whose offset 1 leads to unit 65, its value (offset 0 of the targets: "a"); after 'A',
// 'B' (0x42) goes to 65 ^ 0x42 = unit 3, whose offset 4 leads to unit 7, its value (offset 2: "x").
std::string two_rule_charsmap() {
  std::vector<std::uint32_t> units(256, 0);
  const auto unit = [](std::uint32_t label, std::uint32_t offset, bool leaf) { return label | (leaf ? 1u << 8 : 0) | (offset << 10); };
  units[0] = unit(0, 1, false);
  units[64] = unit('A', 1, true);
  units[65] = 0x80000000u | 0;
  units[3] = unit('B', 4, true);
  units[7] = 0x80000000u | 2;
  return w::charsmap(units, std::string("a\0x\0", 4));
}

}  // namespace

TEST(SentencePiece, CharsmapRulesApplyLongestFirstButNotInsideUserDefinedPieces) {
  const std::string rules = w::bytes_field(2, two_rule_charsmap());
  const SentencePieceTokenizer sp(w::model(tiny_pieces(), "", rules));
  EXPECT_EQ(sp.normalize("ABAC"), kSpace + "xaC");
  EXPECT_EQ(sp.normalize("BA"), kSpace + "Ba");
  std::vector<w::Piece> pieces = tiny_pieces();
  pieces.push_back({"A", 0, w::kUserDefined});
  const SentencePieceTokenizer user(w::model(pieces, "", rules));
  EXPECT_EQ(user.normalize("ABAC"), kSpace + "ABAC");
}

TEST(SentencePiece, ServesTheTokenizerInterface) {
  const SentencePieceTokenizer sp(w::model(tiny_pieces()));
  const Tokenizer& t = sp;
  EXPECT_EQ(t.split("ab zq"), (std::vector<std::string>{kSpace + "a", "b", kSpace, "zq"}));
  EXPECT_EQ(t.join({kSpace + "a", "b", kSpace, "c"}), "ab c");
  std::vector<std::string> tokens;
  for (const auto& p : tiny_pieces()) tokens.push_back(p.text);
  const Vocabulary vocab(tokens);
  // Pieces map to ids through the vocabulary, as a converted model's tokenizer maps them
  // (Marian's vocab.json): an unknown run is unknown there too...
  const Encoded e = encode(t, vocab, "ab zq", 0);
  EXPECT_EQ(e.ids, (std::vector<int>{4, 6, 3, 0}));
  EXPECT_EQ(e.unknown, (std::vector<std::string>{"zq"}));
  // ...unless its text is a vocabulary entry, here the unused piece "zz" (encode_ids says 0).
  EXPECT_EQ(encode(t, vocab, "zz", 0).ids, (std::vector<int>{3, 10}));
  EXPECT_EQ(sp.encode_ids("zz"), (std::vector<int>{3, 0}));
  EXPECT_EQ(decode(t, vocab, {1, 4, 6, 3, 9, 2}, {1, 2}), "ab c");
  EXPECT_NE(t.to_json().find("\"type\":\"sentencepiece\""), std::string::npos);
  EXPECT_NE(t.to_json().find("\"pieces\":11"), std::string::npos);
}
