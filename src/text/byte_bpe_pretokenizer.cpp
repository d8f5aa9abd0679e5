#include "text/byte_bpe_pretokenizer.h"

#include "text/unicode.h"
#include "text/utf8.h"

namespace attnscope {
namespace {

enum class Kind { Letter, Number, Space, Other };  // \p{L}, \p{N}, \s, [^\s\p{L}\p{N}]

struct Char {
  char32_t code;      // the code point; U+FFFD for a byte that is not UTF-8
  std::size_t begin;  // its bytes in the text
  std::size_t size;
  Kind kind;
};

char32_t code_point(std::string_view text, std::size_t i, std::size_t size) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  static constexpr unsigned char kLeadBits[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  char32_t c = byte(0) & kLeadBits[size];
  for (std::size_t k = 1; k < size; ++k) c = (c << 6) | (byte(k) & 0x3F);
  return c;
}

Kind kind_of(char32_t c) {
  if (unicode::is_letter(c)) return Kind::Letter;
  if (unicode::is_number(c)) return Kind::Number;
  if (unicode::is_white_space(c)) return Kind::Space;
  return Kind::Other;
}

std::vector<Char> characters(std::string_view text) {
  std::vector<Char> chars;
  chars.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t size = utf8_sequence_length(text, i);
    if (size == 0) {
      chars.push_back({0xFFFD, i, 1, Kind::Other});
      ++i;
    } else {
      const char32_t c = code_point(text, i, size);
      chars.push_back({c, i, size, kind_of(c)});
      i += size;
    }
  }
  return chars;
}

// Each alternative: how many characters it matches at chars[i] (0: no match).

// 's|'t|'re|'ve|'m|'ll|'d (case-sensitive: "'S" is not one)
std::size_t contraction(const std::vector<Char>& chars, std::size_t i) {
  const auto at = [&](std::size_t k) { return i + k < chars.size() ? chars[i + k].code : char32_t(0); };
  if (at(0) != U'\'') return 0;
  const char32_t a = at(1), b = at(2);
  if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
  if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
  return 0;
}

std::size_t run_of(const std::vector<Char>& chars, std::size_t i, Kind kind) {
  std::size_t j = i;
  while (j < chars.size() && chars[j].kind == kind) ++j;
  return j - i;
}

// " ?\p{L}+", " ?\p{N}+" and " ?[^\s\p{L}\p{N}]+": an optional U+0020, then a run of `kind`.
std::size_t optional_space_then_run(const std::vector<Char>& chars, std::size_t i, Kind kind) {
  const std::size_t space = chars[i].code == U' ' && i + 1 < chars.size() && chars[i + 1].kind == kind ? 1 : 0;
  const std::size_t run = run_of(chars, i + space, kind);
  return run == 0 ? 0 : space + run;
}

// \s+(?!\S): a run of white space not followed by anything else. Backtracking leaves the run's
// last character for what follows it (" word" keeps its space), unless the text ends there.
std::size_t space_not_before_nonspace(const std::vector<Char>& chars, std::size_t i) {
  const std::size_t run = run_of(chars, i, Kind::Space);
  if (run == 0) return 0;
  if (i + run == chars.size()) return run;
  return run - 1;
}

// \s+
std::size_t space_run(const std::vector<Char>& chars, std::size_t i) { return run_of(chars, i, Kind::Space); }

std::size_t match_at(const std::vector<Char>& chars, std::size_t i) {
  if (std::size_t n = contraction(chars, i)) return n;
  if (std::size_t n = optional_space_then_run(chars, i, Kind::Letter)) return n;
  if (std::size_t n = optional_space_then_run(chars, i, Kind::Number)) return n;
  if (std::size_t n = optional_space_then_run(chars, i, Kind::Other)) return n;
  if (std::size_t n = space_not_before_nonspace(chars, i)) return n;
  return space_run(chars, i);
}

}  // namespace

std::vector<std::string_view> gpt2_pretokenize(std::string_view text) {
  const std::vector<Char> chars = characters(text);
  std::vector<std::string_view> tokens;
  for (std::size_t i = 0; i < chars.size();) {
    const std::size_t n = match_at(chars, i);  // >= 1: every character is of one of the classes
    const Char& last = chars[i + n - 1];
    tokens.push_back(text.substr(chars[i].begin, last.begin + last.size - chars[i].begin));
    i += n;
  }
  return tokens;
}

}  // namespace attnscope
