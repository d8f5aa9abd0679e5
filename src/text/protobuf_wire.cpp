#include "text/protobuf_wire.h"

#include <cstring>

#include "core/error.h"

namespace attnscope {
namespace {

const char* wire_type_name(WireType t) {
  switch (t) {
    case WireType::Varint: return "varint";
    case WireType::Fixed64: return "64-bit";
    case WireType::Bytes: return "length-delimited";
    case WireType::Fixed32: return "32-bit";
  }
  return "?";
}

[[noreturn]] void wrong_type(const std::string* context, std::uint32_t number, WireType got, const char* want) {
  throw ModelFileError((context ? *context : std::string("protobuf message")) + ": field " + std::to_string(number) +
                       " is " + wire_type_name(got) + ", expected " + want);
}

}  // namespace

std::int32_t WireField::int32() const {
  if (type != WireType::Varint) wrong_type(context_, number, type, "a varint");
  // Protobuf writes a negative int32 sign-extended to 64 bits; the low 32 bits are the value.
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(scalar_ & 0xFFFFFFFFu));
}

bool WireField::boolean() const {
  if (type != WireType::Varint) wrong_type(context_, number, type, "a varint");
  return scalar_ != 0;
}

float WireField::float32() const {
  if (type != WireType::Fixed32) wrong_type(context_, number, type, "a 32-bit float");
  const std::uint32_t bits = static_cast<std::uint32_t>(scalar_);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

std::string_view WireField::bytes() const {
  if (type != WireType::Bytes) wrong_type(context_, number, type, "length-delimited bytes");
  return bytes_;
}

WireReader::WireReader(std::string_view message, std::string context) : data_(message), context_(std::move(context)) {}

void WireReader::fail(const std::string& what) const {
  throw ModelFileError(context_ + ": " + what + " at byte " + std::to_string(pos_));
}

std::uint64_t WireReader::varint() {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= data_.size()) fail("a varint runs past the end (truncated)");
    const unsigned char b = static_cast<unsigned char>(data_[pos_++]);
    // The tenth byte may carry only the top bit of a 64-bit value.
    if (shift == 63 && b > 1) fail("a varint is longer than 64 bits");
    value |= static_cast<std::uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) return value;
  }
  fail("a varint is longer than 10 bytes");
}

WireField WireReader::next() {
  WireField f;
  f.context_ = &context_;
  const std::uint64_t key = varint();
  const std::uint64_t number = key >> 3;
  if (number == 0 || number > 0x1FFFFFFF) fail("field number " + std::to_string(number) + " is invalid");
  f.number = static_cast<std::uint32_t>(number);
  const auto fixed = [&](std::size_t n) {
    if (data_.size() - pos_ < n) fail("field " + std::to_string(number) + " runs past the end (truncated)");
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < n; ++k) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(data_[pos_ + k])) << (8 * k);
    pos_ += n;
    return v;
  };
  switch (key & 7) {
    case 0:
      f.type = WireType::Varint;
      f.scalar_ = varint();
      break;
    case 1:
      f.type = WireType::Fixed64;
      f.scalar_ = fixed(8);
      break;
    case 5:
      f.type = WireType::Fixed32;
      f.scalar_ = fixed(4);
      break;
    case 2: {
      f.type = WireType::Bytes;
      const std::uint64_t length = varint();
      if (length > data_.size() - pos_)
        fail("field " + std::to_string(number) + " declares " + std::to_string(length) + " bytes but " +
             std::to_string(data_.size() - pos_) + " remain (truncated)");
      f.bytes_ = data_.substr(pos_, static_cast<std::size_t>(length));
      pos_ += static_cast<std::size_t>(length);
      break;
    }
    default:  // 3 and 4 are the deprecated groups, 6 and 7 do not exist
      fail("field " + std::to_string(number) + " has unsupported wire type " + std::to_string(key & 7));
  }
  return f;
}

}  // namespace attnscope
