// libFuzzer target: the SentencePiece reader and unigram tokenizer. The first byte picks what the
// rest is:
//   even  a `.model` file's bytes (the protobuf reader, the checks, the charsmap trie): it must
//         load or throw ModelFileError, and a model that loads must encode and decode sentences;
//   odd   a sentence, encoded and decoded with each committed golden model (tests/golden/
//         sentencepiece/: nmt_nfkc, byte fallback, identity with user-defined pieces).
// Checked for every encoding: ids are inside the model; the pieces glue back to the normalised
// text (byte pieces as their bytes); decoding the ids and the pieces throws nothing. Any other
// exception than a ModelFileError while loading is a failure.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "fuzz_check.h"
#include "text/sentencepiece_tokenizer.h"

using namespace attnscope;

namespace {

void check_encoding(const SentencePieceTokenizer& sp, const std::string& text) {
  const auto pieces = sp.encode(text);
  std::string glued;
  std::vector<int> ids;
  std::vector<std::string> texts;
  for (const auto& p : pieces) {
    FUZZ_CHECK(p.id >= 0 && p.id < sp.piece_count());
    FUZZ_CHECK(!p.text.empty());
    const int byte = sp.model().byte_fallback ? byte_of_piece_text(p.text) : -1;
    if (byte >= 0 && sp.model().pieces[static_cast<std::size_t>(p.id)].type == SentencePieceModel::PieceType::Byte)
      glued += static_cast<char>(byte);
    else
      glued += p.text;
    ids.push_back(p.id);
    texts.push_back(p.text);
  }
  FUZZ_CHECK(glued == sp.normalize(text));
  sp.decode_ids(ids);
  sp.decode_pieces(texts);
}

const std::vector<std::unique_ptr<SentencePieceTokenizer>>& golden_models() {
  static const std::vector<std::unique_ptr<SentencePieceTokenizer>> models = [] {
    std::vector<std::unique_ptr<SentencePieceTokenizer>> out;
    for (const char* name : {"nfkc.model", "bytes.model", "identity.model"}) {
      std::ifstream in(std::string(ATTNSCOPE_GOLDEN_DIR) + "/sentencepiece/" + name, std::ios::binary);
      FUZZ_CHECK(in.good());
      std::ostringstream bytes;
      bytes << in.rdbuf();
      out.push_back(std::make_unique<SentencePieceTokenizer>(bytes.str()));
    }
    return out;
  }();
  return models;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) == 0) {
    std::unique_ptr<SentencePieceTokenizer> sp;
    try {
      sp = std::make_unique<SentencePieceTokenizer>(rest);
    } catch (const ModelFileError&) {
      return 0;
    }
    for (const char* text : {"A man in a blue shirt.", "  \xEF\xBC\xA1 \xEF\xAC\x81 caf\xC3\xA9\t\xFF x", ""}) {
      try {
        check_encoding(*sp, text);
      } catch (const ModelFileError&) {
        // a corrupt charsmap trie is found when a lookup walks into it
      }
    }
  } else {
    for (const auto& sp : golden_models()) check_encoding(*sp, rest);
  }
  return 0;
}
