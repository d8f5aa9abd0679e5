#pragma once
// A minimal reader of the protobuf wire format (protobuf.dev, "Encoding"): enough to walk the
// fields of a message without generated code or a protobuf library. Every read is checked against
// the bytes that remain, so a truncated or corrupt message is a ModelFileError, never a read past
// its end; nothing is allocated, fields are views into the message.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace attnscope {

enum class WireType : std::uint8_t { Varint = 0, Fixed64 = 1, Bytes = 2, Fixed32 = 5 };

class WireField {
 public:
  std::uint32_t number = 0;
  WireType type = WireType::Varint;

  // The value, read as the schema's type says; each throws ModelFileError naming `context`
  // when the wire type does not fit that type.
  std::int32_t int32() const;  // int32 and enum fields (negative values are 10-byte varints)
  bool boolean() const;
  float float32() const;
  std::string_view bytes() const;  // string, bytes and embedded messages

 private:
  friend class WireReader;
  std::uint64_t scalar_ = 0;  // Varint, Fixed64 and Fixed32 payloads
  std::string_view bytes_;
  const std::string* context_ = nullptr;
};

class WireReader {
 public:
  // `context` names the message in errors, e.g. "SentencePiece model" or "a SentencePiece piece".
  WireReader(std::string_view message, std::string context);
  bool done() const { return pos_ == data_.size(); }
  // The next field; throws ModelFileError when it is truncated or malformed.
  WireField next();

 private:
  std::uint64_t varint();
  [[noreturn]] void fail(const std::string& what) const;

  std::string_view data_;
  std::size_t pos_ = 0;
  std::string context_;
};

}  // namespace attnscope
