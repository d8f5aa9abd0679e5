// io/half.h's binary16 -> binary32 against an independent conversion: the compiler's _Float16
// (GCC and Clang on x86-64), for every one of the 65,536 bit patterns.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "io/half.h"

namespace attnscope {
namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

TEST(Half, EveryPatternMatchesTheCompilersFloat16) {
  int nans = 0, subnormals = 0;
  for (std::uint32_t p = 0; p <= 0xffffu; ++p) {
    const auto h = static_cast<std::uint16_t>(p);
    _Float16 reference;
    std::memcpy(&reference, &h, sizeof h);
    const float expected = static_cast<float>(reference);
    const float got = half_to_float(h);
    if (std::isnan(expected)) {
      ++nans;
      // The compiler may quieten a signalling NaN; the sign and the payload's top bits stay.
      ASSERT_TRUE(std::isnan(got)) << std::hex << p;
      ASSERT_EQ(bits_of(got) | 0x00400000u, bits_of(expected) | 0x00400000u) << std::hex << p;
      continue;
    }
    if ((p & 0x7c00u) == 0 && (p & 0x3ffu) != 0) ++subnormals;
    ASSERT_EQ(bits_of(got), bits_of(expected)) << std::hex << p << " -> " << expected;
  }
  EXPECT_EQ(nans, 2 * 1023);        // the loop did see every class of value
  EXPECT_EQ(subnormals, 2 * 1023);
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);  // and the two ends by hand
  EXPECT_EQ(half_to_float(0x0001), 0x1p-24f);
}

}  // namespace
}  // namespace attnscope
