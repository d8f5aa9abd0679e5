#pragma once
// Standard base64 (RFC 4648 §4, with '=' padding), the form binary data takes inside a model
// file's JSON metadata (a SentencePiece tokenizer's `.model` bytes).
#include <string>
#include <string_view>

namespace attnscope {

// The bytes `text` encodes. Throws ModelFileError naming `what` and the first bad position:
// a character outside the alphabet, a length that is not a multiple of 4, misplaced padding,
// or non-zero bits after the last byte. No white space is accepted.
std::string base64_decode(std::string_view text, const std::string& what);

}  // namespace attnscope
