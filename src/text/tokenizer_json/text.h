#pragma once
// The text a tokenizer.json pipeline passes along, as Hugging Face's NormalizedString keeps it:
// code points, each with the bytes of the input it came from, so that normalizers may insert,
// remove and change characters and every token still knows its offsets in the input.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "text/tokenizer_json/json_fields.h"
#include "text/tokenizer_json/regex.h"

namespace attnscope::tokenizer_json {

struct Char {
  char32_t code;
  std::uint32_t begin, end;  // its bytes in the input (an inserted character: those of the one it stands by)
};
using Text = std::vector<Char>;

// The input's bytes as text. Bytes that are not UTF-8 are read as the WHATWG decoder (and so a JS
// string made of them) reads them: one U+FFFD for each maximal part of an ill-formed sequence,
// covering those bytes.
Text read_input(const std::string& bytes);
std::u32string codes(const Text& text);
std::string utf8(const Text& text);
// Characters `c` each standing by `at` (for insertions).
Text inserted(const std::u32string& c, const Char& at);

// A Split's or Replace's pattern: {"String": "..."} or {"Regex": "..."}.
class Pattern {
 public:
  Pattern(const json& value, const std::string& path);
  // The matches in `text`, leftmost first, not overlapping (code point ranges).
  std::vector<Regex::Match> find(const std::u32string& text) const;

 private:
  std::u32string literal_;
  std::unique_ptr<Regex> regex_;
};

// Hugging Face's SplitDelimiterBehavior: what becomes of the matches when a text is cut at them.
enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
Behavior read_behavior(const json& object, const char* key, const std::string& path, Behavior fallback);

// `text` cut at `matches` (sorted, not overlapping) as `behavior` says, empty pieces dropped.
// With `invert`, the matches are the parts between them.
void split_at(const Text& text, const std::vector<Regex::Match>& matches, Behavior behavior, bool invert,
              std::vector<Text>& out);
// Every character for which `is_match` holds is a match of its own.
template <class Predicate>
std::vector<Regex::Match> char_matches(const Text& text, Predicate is_match) {
  std::vector<Regex::Match> out;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (is_match(text[i].code)) out.push_back({i, i + 1});
  return out;
}

// Rust's char::is_whitespace: the White_Space property.
bool is_whitespace(char32_t c);

}  // namespace attnscope::tokenizer_json
