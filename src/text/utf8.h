#pragma once
// Minimal UTF-8 <-> code point conversion. Invalid bytes decode to U+FFFD rather than
// throwing: a sentence typed into a page must never crash the tokenizer.
#include <cstddef>
#include <string>
#include <string_view>

namespace attnscope {

std::u32string decode_utf8(const std::string& text);
std::string encode_utf8(const std::u32string& text);
std::string encode_utf8(char32_t c);

// Length in bytes (1..4) of the well-formed UTF-8 sequence that starts at text[i], or 0 when the
// bytes there are not one (a stray continuation byte, a truncated sequence, an overlong form, a
// surrogate or a value past U+10FFFF). `i` must be < text.size().
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

}  // namespace attnscope
