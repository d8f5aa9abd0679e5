#pragma once
// The alphabet of byte-level BPE (Radford et al. 2019, GPT-2's encoder.py): each of the 256 byte
// values stands for one printable code point, so that a BPE over code points is a BPE over the
// bytes of UTF-8 text and every text has pieces. The printable bytes '!'..'~', U+00A1..U+00AC and
// U+00AE..U+00FF stand for themselves; the other 68 (control bytes, space, U+00A0, U+00AD), in
// increasing order, for U+0100, U+0101, ..., U+0143 (a space is "Ġ", U+0120; a newline "Ċ", U+010A).
#include <array>

namespace attnscope {

// encoder.py's bytes_to_unicode(): the code point that stands for each byte.
const std::array<char32_t, 256>& bytes_to_unicode();

// Its inverse (encoder.py's byte_decoder): the byte `c` stands for, or -1 when `c` is not one of
// the 256 code points of the alphabet.
int unicode_to_byte(char32_t c);

}  // namespace attnscope
