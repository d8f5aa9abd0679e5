#pragma once
// Minimal UTF-8 <-> code point conversion. Invalid bytes decode to U+FFFD rather than
// throwing: a sentence typed into a page must never crash the tokenizer.
#include <string>

namespace attnscope {

std::u32string decode_utf8(const std::string& text);
std::string encode_utf8(const std::u32string& text);
std::string encode_utf8(char32_t c);

}  // namespace attnscope
