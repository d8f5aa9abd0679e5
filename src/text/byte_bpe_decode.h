#pragma once
// Byte-level BPE pieces back to text (GPT-2's encoder.py decode): the pieces are concatenated,
// each code point is mapped back to the byte it stands for (text/byte_bpe_alphabet.h), and the
// bytes are read as UTF-8, so pieces that split a character join back into it.
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

// The text of `pieces`, always well-formed UTF-8. Bytes that are not (a token list cut inside a
// character) are replaced as Python's bytes.decode("utf-8", errors="replace") and the WHATWG
// TextDecoder do: one U+FFFD for each maximal prefix of a well-formed sequence, or for a byte that
// starts none. A piece with a code point outside the alphabet (a vocabulary's added token) is
// written as it is.
std::string decode_byte_level(const std::vector<std::string>& pieces);

// How many bytes from text[i] form the longest prefix of a well-formed sequence (at least 1): the
// bytes one U+FFFD replaces when the sequence at i is ill-formed.
std::size_t maximal_subpart(std::string_view text, std::size_t i);

// `bytes` with every ill-formed part replaced as above.
std::string utf8_with_replacements(std::string_view bytes);

}  // namespace attnscope
