#include "text/byte_bpe_decode.h"

#include "text/byte_bpe_alphabet.h"
#include "text/utf8.h"

namespace attnscope {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Appends the bytes `piece` stands for to `out`; false, with nothing appended, when one of its
// code points stands for no byte.
bool piece_bytes(const std::string& piece, std::string& out) {
  std::string bytes;
  for (char32_t c : decode_utf8(piece)) {
    const int b = unicode_to_byte(c);
    if (b < 0) return false;
    bytes += static_cast<char>(b);
  }
  out += bytes;
  return true;
}

// The range the byte after `lead` may take in a well-formed sequence (The Unicode Standard,
// Table 3-7): narrower after E0, ED, F0 and F4, which would otherwise start an overlong form, a
// surrogate or a value past U+10FFFF.
void second_byte_range(unsigned char lead, unsigned char& lo, unsigned char& hi) {
  lo = 0x80, hi = 0xBF;
  if (lead == 0xE0) lo = 0xA0;
  if (lead == 0xED) hi = 0x9F;
  if (lead == 0xF0) lo = 0x90;
  if (lead == 0xF4) hi = 0x8F;
}

}  // namespace

std::size_t maximal_subpart(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4) length = 4;
  else return 1;
  unsigned char lo, hi;
  second_byte_range(lead, lo, hi);
  std::size_t k = 1;
  while (k < length && i + k < text.size()) {
    const unsigned char b = byte(i + k);
    if (b < lo || b > hi) break;
    lo = 0x80, hi = 0xBF;
    ++k;
  }
  return k;
}

std::string utf8_with_replacements(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    if (const std::size_t n = utf8_sequence_length(bytes, i)) {
      out.append(bytes.substr(i, n));
      i += n;
    } else {
      out += kReplacement;
      i += maximal_subpart(bytes, i);
    }
  }
  return out;
}

std::string decode_byte_level(const std::vector<std::string>& pieces) {
  std::string bytes;
  for (const std::string& piece : pieces)
    if (!piece_bytes(piece, bytes)) bytes += piece;
  return utf8_with_replacements(bytes);
}

}  // namespace attnscope
