#pragma once
// IEEE 754 binary16 -> binary32, bit-exact (including subnormals, inf and NaN), and bfloat16 -> binary32.
#include <cstdint>
#include <cstring>

namespace attnscope {

// Without a branch per class of value (a model's load converts millions of weights, and WASM runs
// a function called once in its baseline tier): the 15 bits of exponent and mantissa, shifted to
// where binary32 keeps them, are the bits of the value times 2^-112, normal or subnormal alike,
// and one multiplication by 2^112 (exact: a power of two, the result representable) rebiases it.
// Checked against the compiler's _Float16 for all 65,536 patterns (tests/native/half_test.cpp).
inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t magnitude = h & 0x7fffu;
  std::uint32_t bits;
  if (magnitude >= 0x7c00u) {  // inf / NaN (payload kept)
    bits = sign | 0x7f800000u | ((magnitude & 0x3ffu) << 13);
  } else {
    float scaled;
    bits = magnitude << 13;
    std::memcpy(&scaled, &bits, sizeof scaled);
    scaled *= 0x1p112f;
    std::memcpy(&bits, &scaled, sizeof bits);
    bits |= sign;
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// bfloat16 is binary32's upper 16 bits (same sign, exponent, top 7 mantissa bits): every pattern,
// subnormals, inf and NaN included, is exactly the binary32 with 16 zero bits below it.
inline float bfloat16_to_float(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace attnscope
