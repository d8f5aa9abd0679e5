#pragma once
// GPT-2's pre-tokenisation (encoder.py's `pat`, run with Python's `regex` module):
//
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// written out by hand, one function per alternative, with \p{L}, \p{N} and \s (the White_Space
// property) from the generated Unicode tables (text/unicode.h). The alternatives are tried in that
// order at each position; every character matches one of them, so the pre-tokens cover the text.
// A byte that does not start a well-formed UTF-8 sequence is a character of its own, of none of
// the three classes (as [^\s\p{L}\p{N}] reads it), so that its byte survives into the pieces.
#include <string_view>
#include <vector>

namespace attnscope {

// `text` cut into GPT-2's pre-tokens: consecutive views into `text`, together all of it.
std::vector<std::string_view> gpt2_pretokenize(std::string_view text);

}  // namespace attnscope
