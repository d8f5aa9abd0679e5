#include "text/unicode.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace attnscope::unicode {
namespace {

struct CodeRange {
  char32_t lo, hi;
};

struct CategoryRange {
  char32_t lo, hi;
  unsigned char category;  // a Category
};

struct ClassRange {
  char32_t lo, hi;
  unsigned char combining_class;
};

template <int N>
struct CodeMapping {
  char32_t from;
  char32_t to[N];
  int length;
};

struct Decomposition {
  char32_t from;
  unsigned short offset;  // into kDecompositionPool
  unsigned char length;
  bool compat;
};

struct Composition {
  char32_t first, second, composite;
};

#include "text/unicode_tables.inc"

template <std::size_t M>
bool in(const CodeRange (&table)[M], char32_t c) {
  const CodeRange* end = table + M;
  const CodeRange* it = std::upper_bound(table, end, c, [](char32_t x, const CodeRange& r) { return x < r.lo; });
  return it != table && c <= std::prev(it)->hi;
}

// The row of a table of ranges (sorted, disjoint) that holds `c`, or nullptr.
template <class Row, std::size_t M>
const Row* row_of(const Row (&table)[M], char32_t c) {
  const Row* end = table + M;
  const Row* it = std::upper_bound(table, end, c, [](char32_t x, const Row& r) { return x < r.lo; });
  return it != table && c <= std::prev(it)->hi ? std::prev(it) : nullptr;
}

template <class Row, std::size_t M>
const Row* find(const Row (&table)[M], char32_t c) {
  const Row* end = table + M;
  const Row* it = std::lower_bound(table, end, c, [](const Row& m, char32_t x) { return m.from < x; });
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

// Hangul syllables decompose and compose arithmetically (The Unicode Standard, §3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr int kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

bool is_hangul_syllable(char32_t c) { return c >= kSBase && c < kSBase + kSCount; }

// Appends the full decomposition of `c` (canonical, or compatibility too) to `out`.
void decompose(char32_t c, bool compat, std::u32string& out) {
  if (is_hangul_syllable(c)) {
    const int s = static_cast<int>(c - kSBase);
    out.push_back(kLBase + s / kNCount);
    out.push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount) out.push_back(kTBase + s % kTCount);
    return;
  }
  const Decomposition* d = find(kDecomposition, c);
  if (!d || (d->compat && !compat)) {
    out.push_back(c);
    return;
  }
  for (int k = 0; k < d->length; ++k) decompose(kDecompositionPool[d->offset + k], compat, out);
}

// The primary composite of (first, second), or 0.
char32_t compose(char32_t first, char32_t second) {
  if (first >= kLBase && first < kLBase + kLCount && second >= kVBase && second < kVBase + kVCount)
    return kSBase + ((first - kLBase) * kVCount + (second - kVBase)) * kTCount;
  if (is_hangul_syllable(first) && (first - kSBase) % kTCount == 0 && second > kTBase && second < kTBase + kTCount)
    return first + (second - kTBase);
  const Composition* end = kComposition + std::size(kComposition);
  const Composition* it = std::lower_bound(kComposition, end, std::make_pair(first, second),
                                           [](const Composition& m, const std::pair<char32_t, char32_t>& x) {
                                             return m.first != x.first ? m.first < x.first : m.second < x.second;
                                           });
  return it != end && it->first == first && it->second == second ? it->composite : 0;
}

constexpr const char* kCategoryNames[] = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl",
                                          "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc",
                                          "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"};

}  // namespace

const char* version() { return kUnicodeVersion; }

Category category(char32_t c) {
  const CategoryRange* r = row_of(kCategory, c);
  return r ? static_cast<Category>(r->category) : Category::Cn;
}

const char* category_name(Category k) { return kCategoryNames[static_cast<int>(k)]; }

bool category_of_name(const std::string& name, Category& k) {
  for (int i = 0; i < static_cast<int>(std::size(kCategoryNames)); ++i)
    if (name == kCategoryNames[i]) {
      k = static_cast<Category>(i);
      return true;
    }
  return false;
}

bool is_punctuation(char32_t c) { return category_name(category(c))[0] == 'P'; }
bool is_space_separator(char32_t c) { return category(c) == Category::Zs; }
bool is_control(char32_t c) {
  const Category k = category(c);
  return k == Category::Cc || k == Category::Cf;
}
bool is_nonspacing_mark(char32_t c) { return category(c) == Category::Mn; }
bool is_letter(char32_t c) { return category_name(category(c))[0] == 'L'; }
bool is_number(char32_t c) { return category_name(category(c))[0] == 'N'; }
bool is_white_space(char32_t c) { return in(kWhiteSpace, c); }

std::u32string lower(const std::u32string& word) {
  std::u32string out;
  out.reserve(word.size());
  for (std::size_t i = 0; i < word.size(); ++i) {
    const char32_t c = word[i];
    if (c == 0x03A3) out.push_back(final_sigma(word, i) ? 0x03C2 : 0x03C3);
    else out += lower(c);
  }
  return out;
}

std::u32string lower(char32_t c) {
  if (const auto* m = find(kLower, c)) return std::u32string(m->to, m->to + m->length);
  return std::u32string(1, c);
}

std::u32string strip_accents(const std::u32string& word) {
  std::u32string decomposed, out;
  for (char32_t c : word) decompose(c, false, decomposed);
  for (char32_t c : decomposed)
    if (!is_nonspacing_mark(c)) out.push_back(c);
  return out;
}

int combining_class(char32_t c) {
  const ClassRange* r = row_of(kCombiningClass, c);
  return r ? r->combining_class : 0;
}

std::u32string normalize(const std::u32string& text, Form form, std::vector<Origin>* origins) {
  const bool compat = form == Form::NFKC || form == Form::NFKD;
  std::u32string out;
  std::vector<Origin> from;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::size_t before = out.size();
    decompose(text[i], compat, out);
    from.resize(out.size(), Origin{i, i});
    // Canonical ordering: each new mark moves back past the marks of a higher class before it.
    // Origins stay where they are, as the tokenizers crate aligns a reordered text position by
    // position, so that they keep the input's order.
    for (std::size_t j = before; j < out.size(); ++j) {
      const int cc = combining_class(out[j]);
      for (std::size_t k = j; cc != 0 && k > 0 && combining_class(out[k - 1]) > cc; --k) std::swap(out[k], out[k - 1]);
    }
  }
  if (form == Form::NFC || form == Form::NFKC) {
    // Canonical composition: each code point joins the last starter when nothing between them
    // blocks it (a code point of its class or of class 0).
    std::u32string composed;
    std::vector<Origin> composed_from;
    std::size_t starter = std::u32string::npos;  // in `composed`
    int last_class = -1;  // of the last code point kept after the starter
    for (std::size_t j = 0; j < out.size(); ++j) {
      const char32_t c = out[j];
      const int cc = combining_class(c);
      if (starter != std::u32string::npos && (last_class < cc || (last_class == -1 && cc == 0))) {
        if (const char32_t composite = compose(composed[starter], c)) {
          composed[starter] = composite;
          Origin& o = composed_from[starter];
          o = {std::min(o.first, from[j].first), std::max(o.last, from[j].last)};
          continue;
        }
      }
      if (cc == 0) {
        starter = composed.size();
        last_class = -1;
      } else {
        last_class = cc;
      }
      composed.push_back(c);
      composed_from.push_back(from[j]);
    }
    out = std::move(composed);
    from = std::move(composed_from);
    // A composite that took in a mark past others leaves those marks behind it in the input:
    // they are said to come from as far as it does.
    for (std::size_t j = 1; j < from.size(); ++j) {
      from[j].last = std::max(from[j].last, from[j - 1].last);
      from[j].first = std::min(std::max(from[j].first, from[j - 1].first), from[j].last);
    }
  }
  if (origins) *origins = std::move(from);
  return out;
}

}  // namespace attnscope::unicode
