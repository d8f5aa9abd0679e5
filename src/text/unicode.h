#pragma once
// The Unicode character properties BERT's basic tokenizer (text/wordpiece_tokenizer.h) and GPT-2's
// pre-tokenisation regex (text/byte_bpe_pretokenizer.h) use, answered from tables generated out of
// Python's unicodedata (models/tools/make_unicode_tables.py, src/text/unicode_tables.inc), so that
// this engine and the Python reference agree without ICU.
#include <string>

namespace attnscope::unicode {

const char* version();  // the Unicode version of the tables, e.g. "14.0.0"

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

// The canonical decomposition (NFD) of every code point with the non-spacing marks dropped:
// "é" -> "e". Code point by code point (no canonical reordering, which only moves marks that are
// dropped anyway).
std::u32string strip_accents(const std::u32string& word);

}  // namespace attnscope::unicode
