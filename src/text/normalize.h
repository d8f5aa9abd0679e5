#pragma once
// Text normalisation shared by every tokenizer (models/FORMAT.md, "tokenizer").
#include <string>
#include <vector>

namespace attnscope {

// Lower-cases A-Z and the Latin-1 capitals U+00C0..U+00DE (except U+00D7 '×') and nothing
// else, so that the Python reference and this engine agree without a Unicode database.
char32_t lowercase_char(char32_t c);

// Optionally lower-cases, then splits on whitespace runs. Returns the words as code points.
std::vector<std::u32string> split_words(const std::string& text, bool lowercase);

}  // namespace attnscope
