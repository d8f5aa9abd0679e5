#include "text/byte_bpe_tokenizer.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/quote.h"
#include "text/byte_bpe_alphabet.h"
#include "text/byte_bpe_decode.h"
#include "text/byte_bpe_pretokenizer.h"
#include "text/utf8.h"

namespace attnscope {
namespace {

char hex_digit(int d) { return static_cast<char>(d < 10 ? '0' + d : 'A' + d - 10); }

}  // namespace

ByteBpeTokenizer::ByteBpeTokenizer(std::vector<std::string> merges, const Vocabulary& vocab)
    : merge_count_(merges.size()), vocab_(vocab) {
  if (vocab_.size() == 0) throw ModelFileError("a byte_bpe tokenizer needs the model's vocabulary");
  for (int b = 0; b < 256; ++b) byte_ids_[b] = vocab_.id(encode_utf8(bytes_to_unicode()[b]), -1);
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    const std::string& m = merges[rank];
    const auto where = [&] { return "byte_bpe merge " + std::to_string(rank) + " " + quote(m); };
    const std::size_t space = m.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == m.size() || m.find(' ', space + 1) != std::string::npos)
      throw ModelFileError(where() + " is not two symbols 'left right'");
    const std::string left = m.substr(0, space), right = m.substr(space + 1);
    for (const std::string& piece : {left, right, left + right})
      if (!vocab_.contains(piece)) throw ModelFileError(where() + ": " + quote(piece) + " is not in the vocabulary");
    // A merge listed twice keeps its later rank, as encoder.py's dict(zip(merges, range(...))) does.
    merges_[pair_key(vocab_.id(left, -1), vocab_.id(right, -1))] =
        Merge{static_cast<int>(rank), vocab_.id(left + right, -1)};
  }
}

std::vector<int> ByteBpeTokenizer::merge(std::string_view pretoken) const {
  std::vector<int> symbols;
  symbols.reserve(pretoken.size());
  for (char ch : pretoken) {
    const auto b = static_cast<unsigned char>(ch);
    if (byte_ids_[b] < 0) {
      const std::string piece = encode_utf8(bytes_to_unicode()[b]);
      throw InputError(std::string("byte 0x") + hex_digit(b >> 4) + hex_digit(b & 15) + " of the text (piece " +
                       quote(piece) + ") is not in the model's vocabulary, and byte_bpe has no unknown piece");
    }
    symbols.push_back(byte_ids_[b]);
  }
  while (symbols.size() > 1) {
    const Merge* best = nullptr;
    int left = 0, right = 0;
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      const auto it = merges_.find(pair_key(symbols[i], symbols[i + 1]));
      if (it != merges_.end() && (!best || it->second.rank < best->rank)) {
        best = &it->second;
        left = symbols[i];
        right = symbols[i + 1];
      }
    }
    if (!best) break;
    std::vector<int> merged;
    merged.reserve(symbols.size());
    for (std::size_t i = 0; i < symbols.size(); ++i) {
      if (i + 1 < symbols.size() && symbols[i] == left && symbols[i + 1] == right) {
        merged.push_back(best->result);
        ++i;
      } else {
        merged.push_back(symbols[i]);
      }
    }
    symbols = std::move(merged);
  }
  return symbols;
}

std::vector<std::string> ByteBpeTokenizer::split(const std::string& text) const {
  std::vector<std::string> pieces;
  for (std::string_view pretoken : gpt2_pretokenize(text))
    for (int id : merge(pretoken)) pieces.push_back(vocab_.token(id));
  return pieces;
}

std::string ByteBpeTokenizer::join(const std::vector<std::string>& pieces) const { return decode_byte_level(pieces); }

std::string ByteBpeTokenizer::to_json() const {
  return nlohmann::json{{"type", "byte_bpe"}, {"merge_count", merge_count_}}.dump();
}

}  // namespace attnscope
