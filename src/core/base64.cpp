#include "core/base64.h"

#include "core/error.h"

namespace attnscope {
namespace {

// The 6-bit value of an alphabet character, or -1.
int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string base64_decode(std::string_view text, const std::string& what) {
  auto fail = [&](const std::string& why) { throw ModelFileError(what + " is not valid base64: " + why); };
  if (text.size() % 4 != 0)
    fail("its length " + std::to_string(text.size()) + " is not a multiple of 4");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    // '=' may only end the text: "xx==" or "xxx=".
    const int padding = last ? (text[i + 3] == '=') + (text[i + 2] == '=' && text[i + 3] == '=') : 0;
    int v[4] = {0, 0, 0, 0};
    for (int k = 0; k < 4 - padding; ++k) {
      v[k] = sextet(text[i + k]);
      if (v[k] < 0) fail("character " + std::to_string(i + k) + " is not in the base64 alphabet");
    }
    const unsigned bits = (static_cast<unsigned>(v[0]) << 18) | (static_cast<unsigned>(v[1]) << 12) |
                          (static_cast<unsigned>(v[2]) << 6) | static_cast<unsigned>(v[3]);
    out += static_cast<char>((bits >> 16) & 0xFF);
    if (padding < 2) out += static_cast<char>((bits >> 8) & 0xFF);
    if (padding < 1) out += static_cast<char>(bits & 0xFF);
    if ((padding == 1 && (bits & 0xFF) != 0) || (padding == 2 && (bits & 0xFFFF) != 0))
      fail("the bits after the last byte are not zero");
  }
  return out;
}

}  // namespace attnscope
