#pragma once
// The Unicode character properties the tokenizers use (BERT's basic tokenizer in
// text/wordpiece_tokenizer.h, GPT-2's pre-tokenisation regex in text/byte_bpe_pretokenizer.h,
// tokenizer.json's normalizers and regexes in text/tokenizer_json/), answered from tables generated
// out of Python's unicodedata (models/tools/make_unicode_tables.py, src/text/unicode_tables.inc), so
// that this engine and the Python reference agree without ICU.
#include <cstddef>
#include <string>
#include <vector>

namespace attnscope::unicode {

const char* version();  // the Unicode version of the tables, e.g. "14.0.0"

// The general categories, in the generator's order; Cn (unassigned) last.
enum class Category {
  Lu, Ll, Lt, Lm, Lo, Mn, Mc, Me, Nd, Nl, No, Pc, Pd, Ps, Pe, Pi,
  Pf, Po, Sm, Sc, Sk, So, Zs, Zl, Zp, Cc, Cf, Cs, Co, Cn
};
Category category(char32_t c);
// The two-letter name of a category ("Lu"), and the category of one ("Lu" -> Lu); false for a
// name that is not one.
const char* category_name(Category k);
bool category_of_name(const std::string& name, Category& k);

bool is_punctuation(char32_t c);  // category P*
bool is_space_separator(char32_t c);  // category Zs
bool is_control(char32_t c);  // category Cc or Cf
bool is_nonspacing_mark(char32_t c);  // category Mn
bool is_letter(char32_t c);  // category L* (a regex's \p{L})
bool is_number(char32_t c);  // category N* (a regex's \p{N})
bool is_white_space(char32_t c);  // the White_Space property (the `regex` module's \s)

// Python's str.lower() of a word: per code point, with the final-sigma rule (Σ becomes ς after a
// cased letter and before none; "cased": lower() or upper() changes it; "case-ignorable": Mn).
std::u32string lower(const std::u32string& word);
// The full lower-case mapping of one code point (no context: Σ is σ), as Rust's char::to_lowercase.
std::u32string lower(char32_t c);

// The canonical decomposition (NFD) of every code point with the non-spacing marks dropped:
// "é" -> "e". Code point by code point (no canonical reordering, which only moves marks that are
// dropped anyway).
std::u32string strip_accents(const std::u32string& word);

// The canonical combining class (0 for a starter).
int combining_class(char32_t c);

// Unicode normalization forms (UAX #15).
enum class Form { NFC, NFD, NFKC, NFKD };
// Where a code point of a normalized text came from: the input code points [first, last] (a
// decomposition's parts come from one; a composite from its starter through its last mark; marks
// that canonical ordering moves keep the origins of the places they move to, so that origins
// never go backwards).
struct Origin {
  std::size_t first, last;
};
// `text` in form `form`; with `origins`, also where each code point of the result came from.
std::u32string normalize(const std::u32string& text, Form form, std::vector<Origin>* origins = nullptr);

}  // namespace attnscope::unicode
