#include "text/byte_bpe_alphabet.h"

namespace attnscope {
namespace {

bool stands_for_itself(int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); }

constexpr char32_t kFirstShifted = 0x100;  // the code point of the first byte that is not printable
constexpr int kShifted = 68;               // bytes that are not printable

std::array<char32_t, 256> make_alphabet() {
  std::array<char32_t, 256> cs{};
  char32_t next = kFirstShifted;
  for (int b = 0; b < 256; ++b) cs[b] = stands_for_itself(b) ? static_cast<char32_t>(b) : next++;
  return cs;
}

// byte_of[c] for c < U+0100 + 68; -1 for a code point that stands for no byte.
std::array<int, kFirstShifted + kShifted> make_inverse() {
  std::array<int, kFirstShifted + kShifted> byte_of{};
  byte_of.fill(-1);
  const std::array<char32_t, 256>& cs = bytes_to_unicode();
  for (int b = 0; b < 256; ++b) byte_of[cs[b]] = b;
  return byte_of;
}

}  // namespace

const std::array<char32_t, 256>& bytes_to_unicode() {
  static const std::array<char32_t, 256> alphabet = make_alphabet();
  return alphabet;
}

int unicode_to_byte(char32_t c) {
  static const auto byte_of = make_inverse();
  return c < byte_of.size() ? byte_of[c] : -1;
}

}  // namespace attnscope
