// The SentencePiece unigram tokenizer against the sentencepiece library itself: real models it
// trained and its ids, pieces and decodings of 2,068 strings each (tests/golden/sentencepiece/,
// written by models/goldens/make_sentencepiece_goldens.py). Agreement must be complete.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "text/sentencepiece_tokenizer.h"

using namespace attnscope;

namespace {

const std::string kDir = std::string(ATTNSCOPE_GOLDEN_DIR) + "/sentencepiece/";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> lines = split(read_file(path), '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// The generator's escaping: \\ \t \n \r and \xHH.
std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    const char c = s.at(++i);
    if (c == '\\') out += '\\';
    else if (c == 't') out += '\t';
    else if (c == 'n') out += '\n';
    else if (c == 'r') out += '\r';
    else if (c == 'x') {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      ADD_FAILURE() << "bad escape in " << s;
    }
  }
  return out;
}

std::string show(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7F) out += static_cast<char>(c);
    else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    }
  }
  return out;
}

std::string show(const std::vector<int>& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : " ") + std::to_string(id);
  return out;
}

struct Counts {
  int strings = 0, ids = 0, pieces = 0, decoded = 0, joined = 0;
};

Counts check_model(const std::string& name) {
  const SentencePieceTokenizer sp(read_file(kDir + name + ".model"));
  const std::vector<std::string> inputs = lines_of(kDir + "inputs.txt");
  const std::vector<std::string> expected = lines_of(kDir + name + ".expected.txt");
  EXPECT_EQ(inputs.size(), expected.size());
  Counts c;
  int reported = 0;
  const auto report = [&](const std::string& what) {
    if (++reported <= 10) ADD_FAILURE() << name << ": " << what;
  };
  for (std::size_t i = 0; i < inputs.size() && i < expected.size(); ++i) {
    const std::string input = unescape(inputs[i]);
    const std::vector<std::string> fields = split(expected[i], '\t');
    EXPECT_GE(fields.size(), 3u);
    if (fields.size() < 3) continue;
    std::vector<int> want_ids;
    if (!fields[0].empty())
      for (const std::string& id : split(fields[0], ' ')) want_ids.push_back(std::stoi(id));
    const std::string want_decoded = fields[1] == "\\=" ? input : unescape(fields[1]);
    const std::string want_joined = fields[2] == "\\=" ? input : fields[2] == "\\~" ? want_decoded : unescape(fields[2]);
    // The expected pieces: each id's piece, except unknown pieces, whose text the file lists.
    std::vector<std::string> want_pieces;
    std::size_t next_unknown = 3;
    for (int id : want_ids) {
      if (id == sp.unk_id()) want_pieces.push_back(next_unknown < fields.size() ? unescape(fields[next_unknown++]) : "?");
      else want_pieces.push_back(sp.id_to_piece(id));
    }

    ++c.strings;
    const std::vector<SentencePieceTokenizer::Piece> got = sp.encode(input);
    std::vector<int> ids;
    std::vector<std::string> pieces;
    for (const auto& p : got) {
      ids.push_back(p.id);
      pieces.push_back(p.text);
    }
    if (ids == want_ids) ++c.ids;
    else report("ids of '" + show(input) + "': " + show(ids) + ", expected " + show(want_ids));
    if (pieces == want_pieces) ++c.pieces;
    else report("pieces of '" + show(input) + "' differ");
    const std::string decoded = sp.decode_ids(want_ids);
    if (decoded == want_decoded) ++c.decoded;
    else report("decode of '" + show(input) + "': '" + show(decoded) + "', expected '" + show(want_decoded) + "'");
    const std::string joined = sp.decode_pieces(want_pieces);
    if (joined == want_joined) ++c.joined;
    else report("decode_pieces of '" + show(input) + "': '" + show(joined) + "', expected '" + show(want_joined) + "'");
  }
  std::printf("%s: %d strings; ids agree %d, pieces %d, decode(ids) %d, decode(pieces) %d\n", name.c_str(), c.strings,
              c.ids, c.pieces, c.decoded, c.joined);
  EXPECT_GE(c.strings, 2000);
  EXPECT_EQ(c.ids, c.strings);
  EXPECT_EQ(c.pieces, c.strings);
  EXPECT_EQ(c.decoded, c.strings);
  EXPECT_EQ(c.joined, c.strings);
  return c;
}

}  // namespace

TEST(SentencePieceGolden, NmtNfkcModelAgreesWithTheLibrary) { check_model("nfkc"); }

TEST(SentencePieceGolden, ByteFallbackModelAgreesWithTheLibrary) { check_model("bytes"); }

TEST(SentencePieceGolden, IdentityModelWithUserSymbolsAgreesWithTheLibrary) { check_model("identity"); }

TEST(SentencePieceGolden, ModelsAreWhatTheGoldensSayTheyAre) {
  const SentencePieceTokenizer nfkc(read_file(kDir + "nfkc.model"));
  EXPECT_EQ(nfkc.model().normalizer_name, "nmt_nfkc");
  EXPECT_FALSE(nfkc.model().precompiled_charsmap.empty());
  const SentencePieceTokenizer bytes(read_file(kDir + "bytes.model"));
  EXPECT_TRUE(bytes.model().byte_fallback);
  EXPECT_FALSE(bytes.model().remove_extra_whitespaces);
  EXPECT_FALSE(bytes.model().precompiled_charsmap.empty());
  const SentencePieceTokenizer identity(read_file(kDir + "identity.model"));
  EXPECT_EQ(identity.model().normalizer_name, "identity");
  EXPECT_TRUE(identity.model().precompiled_charsmap.empty());
  EXPECT_FALSE(identity.model().add_dummy_prefix);
  int user_defined = 0;
  for (const auto& p : identity.model().pieces) user_defined += p.type == SentencePieceModel::PieceType::UserDefined;
  EXPECT_EQ(user_defined, 5);
}
