// io/half.h's binary16 -> binary32 against an independent conversion, the CPU's own (x86's F16C
// instruction vcvtph2ps), for every one of the 65,536 bit patterns. (Not the compiler's
// _Float16: clang 14, which builds the ASan suite, has none on x86-64.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "io/half.h"

namespace attnscope {
namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

#if defined(__x86_64__)
__attribute__((target("f16c"))) float hardware_half_to_float(std::uint16_t h) { return _cvtsh_ss(h); }

bool cpu_has_f16c() {
  unsigned a, b, c, d;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
}
#endif

TEST(Half, EveryPatternMatchesTheHardwareConversion) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the reference is x86's F16C";
#else
  if (!cpu_has_f16c()) GTEST_SKIP() << "this CPU has no F16C";
  int nans = 0, subnormals = 0;
  for (std::uint32_t p = 0; p <= 0xffffu; ++p) {
    const auto h = static_cast<std::uint16_t>(p);
    const float expected = hardware_half_to_float(h);
    const float got = half_to_float(h);
    if (std::isnan(expected)) {
      ++nans;
      // The hardware quietens a signalling NaN; the sign and the rest of the payload stay.
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
#endif
}

}  // namespace
}  // namespace attnscope
