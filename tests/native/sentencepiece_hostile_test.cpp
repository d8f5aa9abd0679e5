// Corrupt, truncated and unsupported SentencePiece `.model` bytes: each is refused with a
// ModelFileError that says what is wrong, or, where the damage leaves a usable model, encodes
// and decodes without crashing. Nothing may abort, read outside the bytes or allocate beyond
// their size (the sanitizer build runs these too).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "sentencepiece_model_writer.h"
#include "text/sentencepiece_tokenizer.h"

using namespace attnscope;
namespace w = attnscope::spm_writer;

namespace {

const std::string kSpace = "\xE2\x96\x81";

std::string golden(const std::string& name) {
  std::ifstream in(std::string(ATTNSCOPE_GOLDEN_DIR) + "/sentencepiece/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<w::Piece> valid_pieces() {
  return {{"<unk>", 0, w::kUnknown}, {"<s>", 0, w::kControl}, {kSpace, -1}, {"a", -2}, {"b", -2}};
}

// The message of the ModelFileError that loading `bytes` throws ("" when none is thrown).
std::string load_error(const std::string& bytes) {
  try {
    SentencePieceTokenizer sp(bytes);
  } catch (const ModelFileError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_REFUSED(bytes, words)                                                  \
  do {                                                                                \
    const std::string message = load_error(bytes);                                    \
    EXPECT_NE(message.find("SentencePiece model"), std::string::npos) << message;     \
    EXPECT_NE(message.find(words), std::string::npos) << message;                     \
  } while (0)

// Loads `bytes` if they are a usable model and uses it on texts that reach every code path.
// Anything but an attnscope::Error escaping is a failure.
void load_and_use(const std::string& bytes) {
  try {
    const SentencePieceTokenizer sp(bytes);
    for (const char* text : {"A man in a blue shirt.", "  Ａ ﬁ ① café e\xCC\x81 \xF0\x9F\x98\x80 \xFF\t日本", ""}) {
      const auto pieces = sp.encode(text);
      std::vector<int> ids;
      std::vector<std::string> texts;
      for (const auto& p : pieces) {
        ASSERT_GE(p.id, 0);
        ASSERT_LT(p.id, sp.piece_count());
        ids.push_back(p.id);
        texts.push_back(p.text);
      }
      sp.decode_ids(ids);
      sp.decode_pieces(texts);
    }
  } catch (const Error&) {
  }
}

}  // namespace

TEST(SentencePieceHostile, UnsupportedModelsAreRefusedByName) {
  const std::string pieces = w::model(valid_pieces());
  EXPECT_NO_THROW(SentencePieceTokenizer{pieces});
  for (const auto& [type, name] : std::vector<std::pair<int, std::string>>{{2, "BPE"}, {3, "word"}, {4, "char"}}) {
    const std::string bytes = w::model(valid_pieces(), w::varint_field(3, type));
    EXPECT_REFUSED(bytes, "model type " + name + " is not supported (only unigram");
  }
  EXPECT_REFUSED(w::model(valid_pieces(), w::varint_field(24, 1)), "treat_whitespace_as_suffix is not supported");
  EXPECT_REFUSED(pieces + w::bytes_field(5, w::bytes_field(2, "rules")), "denormalizer");
}

TEST(SentencePieceHostile, InconsistentPiecesAreRefused) {
  auto with = [](std::vector<w::Piece> extra) {
    std::vector<w::Piece> p = valid_pieces();
    p.insert(p.end(), extra.begin(), extra.end());
    return w::model(p);
  };
  EXPECT_REFUSED(std::string(), "has no pieces");
  EXPECT_REFUSED(with({{"a", -1}}), "piece 'a' is defined twice");
  EXPECT_NO_THROW(SentencePieceTokenizer{with({{"a", 0, w::kControl}})});  // the library keeps two maps
  EXPECT_REFUSED(with({{"<unk2>", 0, w::kUnknown}}), "second unknown piece");
  EXPECT_REFUSED(w::model({{"a", -1}}), "has no unknown piece");
  EXPECT_REFUSED(w::model({{"<unk>", 0, w::kUnknown}, {"<s>", 0, w::kControl}}), "no normal or user-defined piece");
  EXPECT_REFUSED(with({{"", -1}}), "piece 5 is empty");
  EXPECT_REFUSED(with({{"c", std::numeric_limits<float>::quiet_NaN()}}), "not finite");
  EXPECT_REFUSED(with({{"c", -1, 9}}), "unknown type 9");
  EXPECT_REFUSED(with({{"<0x41>", 0, w::kByte}}), "byte_fallback is off");
  std::vector<w::Piece> bytes = valid_pieces();
  for (int b = 0; b < 255; ++b) bytes.push_back({byte_piece_text(static_cast<unsigned char>(b)), 0, w::kByte});
  EXPECT_REFUSED(w::model(bytes, w::varint_field(35, 1)), "byte piece <0xFF> is missing");
  bytes.push_back({"<0xff>", 0, w::kByte});
  EXPECT_REFUSED(w::model(bytes, w::varint_field(35, 1)), "is not of the form <0xXX>");
  bytes.back().text = "<0xFF>";
  EXPECT_NO_THROW(SentencePieceTokenizer{w::model(bytes, w::varint_field(35, 1))});
}

TEST(SentencePieceHostile, MalformedProtobufIsRefused) {
  const std::string good = w::model(valid_pieces());
  EXPECT_REFUSED(good.substr(0, good.size() - 1), "truncated");
  EXPECT_REFUSED(w::key(1, 2) + w::varint(1000) + "abc", "declares 1000 bytes but 3 remain");
  // A length near 2^63: refused before anything is allocated.
  EXPECT_REFUSED(w::key(3, 2) + w::varint(std::uint64_t(1) << 62), "truncated");
  EXPECT_REFUSED(std::string(11, '\xFF'), "varint");
  EXPECT_REFUSED(good + w::key(7, 3), "unsupported wire type 3");
  EXPECT_REFUSED(std::string("\x00\x01", 2), "field number 0");
  // A field of the wrong wire type: a piece's score written as a varint.
  EXPECT_REFUSED(w::bytes_field(1, w::bytes_field(1, "a") + w::varint_field(2, 5)), "field 2 is varint, expected a 32-bit float");
  EXPECT_REFUSED(w::bytes_field(1, w::bytes_field(1, "a") + w::key(2, 5) + "\x01"), "truncated");
}

TEST(SentencePieceHostile, CorruptCharsmapsAreRefusedOrFailCleanly) {
  const auto with_charsmap = [](const std::string& blob) { return w::model(valid_pieces(), "", w::bytes_field(2, blob)); };
  EXPECT_REFUSED(with_charsmap("\x01\x02"), "charsmap is too short");
  EXPECT_REFUSED(with_charsmap(std::string("\xFF\xFF\x00\x00", 4) + "abcd"), "declares a 65535-byte trie");
  EXPECT_REFUSED(with_charsmap(w::charsmap({0}, "a")), "does not end its targets with a NUL");
  EXPECT_REFUSED(with_charsmap(w::charsmap({0}, std::string(300, 'x') + '\0')), "target longer than 256 bytes");
  // A root whose children lie past the end of the trie: found when text is looked up.
  const SentencePieceTokenizer outside(with_charsmap(w::charsmap({1u << 18}, std::string("a\0", 2))));
  EXPECT_THROW(outside.encode("a"), ModelFileError);
  // A rule whose target offset lies past the targets.
  std::vector<std::uint32_t> units(256, 0);
  units[0] = 1u << 10;                               // root, offset 1
  units[1 ^ 'a'] = 'a' | (1u << 8) | (1u << 10);     // 'a', a leaf, offset 1
  units[(1 ^ 'a') ^ 1] = 0x80000000u | 100;          // its value: offset 100
  const SentencePieceTokenizer far(with_charsmap(w::charsmap(units, std::string("x\0", 2))));
  EXPECT_THROW(far.encode("a"), ModelFileError);
  EXPECT_NO_THROW(far.encode("b"));
}

TEST(SentencePieceHostile, TruncatedRealModelsAreRefusedOrUsable) {
  // Lengths at a stride (the sanitizer build runs this too, ten times slower).
  for (const auto& [name, stride] : std::vector<std::pair<std::string, std::size_t>>{{"identity.model", 3}, {"bytes.model", 7}}) {
    const std::string bytes = golden(name);
    int refused = 0, tried = 0;
    for (std::size_t n = 0; n < bytes.size(); n += stride, ++tried) {
      const std::string cut = bytes.substr(0, n);
      if (!load_error(cut).empty()) ++refused;
      else load_and_use(cut);
    }
    EXPECT_GT(refused, tried / 2) << name;
  }
  // The large model, cut inside its charsmap too.
  const std::string nfkc = golden("nfkc.model");
  for (std::size_t n = 0; n < nfkc.size(); n += 4999) {
    if (load_error(nfkc.substr(0, n)).empty()) load_and_use(nfkc.substr(0, n));
  }
}

TEST(SentencePieceHostile, RandomlyDamagedModelsAreRefusedOrUsable) {
  std::mt19937 rng(5);
  for (const char* name : {"identity.model", "bytes.model", "nfkc.model"}) {
    const std::string bytes = golden(name);
    // Damage anywhere, and (for the NFKC model) inside the charsmap's trie, where a flipped
    // offset sends a lookup anywhere.
    const std::string charsmap = SentencePieceTokenizer(bytes).model().precompiled_charsmap;
    const std::size_t trie_at = charsmap.empty() ? 0 : bytes.find(charsmap);
    const int rounds = charsmap.empty() ? 600 : 200;
    for (int round = 0; round < rounds; ++round) {
      std::string damaged = bytes;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < flips; ++k) {
        const bool in_trie = !charsmap.empty() && (round & 1);
        const std::size_t at = in_trie ? trie_at + 4 + rng() % (charsmap.size() - 4) : rng() % damaged.size();
        damaged[at] = static_cast<char>(damaged[at] ^ (1u << (rng() % 8)));
      }
      load_and_use(damaged);
    }
  }
}
