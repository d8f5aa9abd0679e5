#include "text/byte_bpe_tokenizer.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/quote.h"
#include "text/byte_bpe_alphabet.h"
#include "text/byte_bpe_decode.h"
#include "text/byte_bpe_pretokenizer.h"
#include "text/table_limits.h"
#include "text/utf8.h"

namespace attnscope {
namespace {

char hex_digit(int d) { return static_cast<char>(d < 10 ? '0' + d : 'A' + d - 10); }

}  // namespace

ByteBpeTokenizer::ByteBpeTokenizer(std::vector<std::string> merges, const Vocabulary& vocab)
    : merge_count_(merges.size()), vocab_(vocab) {
  if (vocab_.size() == 0) throw ModelFileError("a byte_bpe tokenizer needs the model's vocabulary");
  check_table_size(merges.size(), kMaxMerges, "the byte_bpe merge list");
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
    merges_.add(vocab_.id(left, -1), vocab_.id(right, -1), {static_cast<int>(rank), vocab_.id(left + right, -1)},
                /*keep_first=*/false);
    // Each character of a byte-level piece stands for one byte and takes one or two bytes of
    // UTF-8, so a piece covers at most as many bytes of text as its own text has.
    longest_ = std::max(longest_, left.size() + right.size());
  }
}

std::vector<int> ByteBpeTokenizer::byte_symbols(std::string_view pretoken) const {
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
  return symbols;
}

std::vector<int> ByteBpeTokenizer::merge(std::string_view pretoken) const {
  return bpe_merge(byte_symbols(pretoken), merges_);
}

std::vector<int> ByteBpeTokenizer::merge_reference(std::string_view pretoken) const {
  return bpe_merge_reference(byte_symbols(pretoken), merges_);
}

bool ByteBpeTokenizer::split_within(const std::string& text, std::size_t max_pieces,
                                    std::vector<std::string>& pieces) const {
  const std::size_t base = pieces.size();
  for (std::string_view pretoken : gpt2_pretokenize(text)) {
    // No piece covers more than longest_ bytes: a pre-token too long for the limit is refused
    // before it is merged.
    const std::size_t at_least = (pretoken.size() + longest_ - 1) / longest_;
    if (at_least > max_pieces - (pieces.size() - base)) return false;
    for (int id : merge(pretoken)) pieces.push_back(vocab_.token(id));
    if (pieces.size() - base > max_pieces) {
      pieces.resize(base + max_pieces + 1);  // the rest of the word's pieces are past the limit
      return false;
    }
  }
  return true;
}

std::string ByteBpeTokenizer::join(const std::vector<std::string>& pieces) const { return decode_byte_level(pieces); }

std::string ByteBpeTokenizer::to_json() const {
  return nlohmann::json{{"type", "byte_bpe"}, {"merge_count", merge_count_}}.dump();
}

}  // namespace attnscope
