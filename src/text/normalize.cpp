#include "text/normalize.h"

#include "text/utf8.h"

namespace attnscope {

char32_t lowercase_char(char32_t c) {
  if (c >= U'A' && c <= U'Z') return c + 0x20;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 0x20;
  return c;
}

static bool is_space(char32_t c) {
  return c == U' ' || c == U'\t' || c == U'\n' || c == U'\r' || c == U'\v' || c == U'\f';
}

std::vector<std::u32string> split_words(const std::string& text, bool lowercase) {
  std::vector<std::u32string> words;
  std::u32string current;
  for (char32_t c : decode_utf8(text)) {
    if (is_space(c)) {
      if (!current.empty()) words.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(lowercase ? lowercase_char(c) : c);
    }
  }
  if (!current.empty()) words.push_back(std::move(current));
  return words;
}

}  // namespace attnscope
