#include "core/quote.h"

#include <cstdint>
#include <cstdio>

namespace attnscope {
namespace {

// Length of the well-formed UTF-8 sequence starting at text[i] (1..4), or 0 if it is not one
// (overlong forms, surrogates and code points past U+10FFFF included). `cp` gets its code point.
std::size_t utf8_sequence(std::string_view text, std::size_t i, std::uint32_t& cp) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  const std::uint8_t b0 = byte(i);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  std::size_t n;
  std::uint32_t min;
  if ((b0 & 0xE0) == 0xC0) n = 2, cp = b0 & 0x1F, min = 0x80;
  else if ((b0 & 0xF0) == 0xE0) n = 3, cp = b0 & 0x0F, min = 0x800;
  else if ((b0 & 0xF8) == 0xF0) n = 4, cp = b0 & 0x07, min = 0x10000;
  else return 0;
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

bool is_control(std::uint32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char escape[8];
  for (std::size_t i = 0; i < text.size();) {
    std::uint32_t cp = 0;
    const std::size_t n = utf8_sequence(text, i, cp);
    if (n == 0) {
      std::snprintf(escape, sizeof escape, "\\x%02X", static_cast<unsigned>(static_cast<std::uint8_t>(text[i])));
      out += escape;
      ++i;
      continue;
    }
    if (is_control(cp)) {
      std::snprintf(escape, sizeof escape, "\\u%04X", static_cast<unsigned>(cp));
      out += escape;
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string excerpt(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return printable(text);
  std::size_t cut = max_bytes;
  // Back to the start of a character (at most 3 continuation bytes), so none is split in two.
  for (int k = 0; k < 3 && cut > 0 && (static_cast<std::uint8_t>(text[cut]) & 0xC0) == 0x80; ++k) --cut;
  return printable(text.substr(0, cut)) + "...";
}

std::string quote(std::string_view text) { return "'" + excerpt(text) + "'"; }

}  // namespace attnscope
