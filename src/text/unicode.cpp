#include "text/unicode.h"

#include <algorithm>
#include <iterator>

namespace attnscope::unicode {
namespace {

struct CodeRange {
  char32_t lo, hi;
};

template <int N>
struct CodeMapping {
  char32_t from;
  char32_t to[N];
  int length;
};

#include "text/unicode_tables.inc"

template <std::size_t M>
bool in(const CodeRange (&table)[M], char32_t c) {
  const CodeRange* end = table + M;
  const CodeRange* it = std::upper_bound(table, end, c, [](char32_t x, const CodeRange& r) { return x < r.lo; });
  return it != table && c <= std::prev(it)->hi;
}

template <int N, std::size_t M>
const CodeMapping<N>* find(const CodeMapping<N> (&table)[M], char32_t c) {
  const CodeMapping<N>* end = table + M;
  const CodeMapping<N>* it =
      std::lower_bound(table, end, c, [](const CodeMapping<N>& m, char32_t x) { return m.from < x; });
  return it != end && it->from == c ? it : nullptr;
}

bool is_cased(char32_t c) { return in(kCased, c); }

// Σ in the final-sigma context: a cased letter before it and none after it, skipping marks.
bool final_sigma(const std::u32string& word, std::size_t i) {
  std::size_t j = i;
  while (j > 0 && is_nonspacing_mark(word[j - 1])) --j;
  if (j == 0 || !is_cased(word[j - 1])) return false;
  std::size_t k = i + 1;
  while (k < word.size() && is_nonspacing_mark(word[k])) ++k;
  return k == word.size() || !is_cased(word[k]);
}

// Hangul syllables decompose arithmetically (The Unicode Standard, §3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr int kVCount = 21, kTCount = 28, kSCount = 19 * kVCount * kTCount;

}  // namespace

const char* version() { return kUnicodeVersion; }
bool is_punctuation(char32_t c) { return in(kPunctuation, c); }
bool is_space_separator(char32_t c) { return in(kSpaceSeparator, c); }
bool is_control(char32_t c) { return in(kControl, c); }
bool is_nonspacing_mark(char32_t c) { return in(kNonspacingMark, c); }
bool is_letter(char32_t c) { return in(kLetter, c); }
bool is_number(char32_t c) { return in(kNumber, c); }
bool is_white_space(char32_t c) { return in(kWhiteSpace, c); }

std::u32string lower(const std::u32string& word) {
  std::u32string out;
  out.reserve(word.size());
  for (std::size_t i = 0; i < word.size(); ++i) {
    const char32_t c = word[i];
    if (c == 0x03A3) {
      out.push_back(final_sigma(word, i) ? 0x03C2 : 0x03C3);
    } else if (const auto* m = find(kLower, c)) {
      out.append(m->to, m->to + m->length);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::u32string strip_accents(const std::u32string& word) {
  std::u32string out;
  out.reserve(word.size());
  for (char32_t c : word) {
    if (c >= kSBase && c < kSBase + kSCount) {
      const int s = static_cast<int>(c - kSBase);
      out.push_back(kLBase + s / (kVCount * kTCount));
      out.push_back(kVBase + (s % (kVCount * kTCount)) / kTCount);
      if (s % kTCount) out.push_back(kTBase + s % kTCount);
    } else if (const auto* m = find(kStrip, c)) {
      out.append(m->to, m->to + m->length);
    } else if (!is_nonspacing_mark(c)) {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace attnscope::unicode
