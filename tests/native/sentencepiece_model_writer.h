#pragma once
// Writes SentencePiece ModelProto bytes for tests: small hand-made models whose encodings can be
// worked out by hand, and corrupt ones. The wire format is written here independently of the
// engine's reader (protobuf.dev, "Encoding").
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace attnscope::spm_writer {

enum Type { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

struct Piece {
  std::string text;
  float score = 0.0f;
  int type = kNormal;
};

inline std::string varint(std::uint64_t v) {
  std::string out;
  do {
    unsigned char b = v & 0x7F;
    v >>= 7;
    if (v) b |= 0x80;
    out += static_cast<char>(b);
  } while (v);
  return out;
}

inline std::string key(int field, int wire_type) { return varint((static_cast<std::uint64_t>(field) << 3) | wire_type); }
inline std::string varint_field(int field, std::uint64_t v) { return key(field, 0) + varint(v); }
inline std::string bytes_field(int field, const std::string& payload) {
  return key(field, 2) + varint(payload.size()) + payload;
}
inline std::string float_field(int field, float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  std::string out = key(field, 5);
  for (int k = 0; k < 4; ++k) out += static_cast<char>((bits >> (8 * k)) & 0xFF);
  return out;
}

inline std::string piece(const Piece& p) {
  return bytes_field(1, bytes_field(1, p.text) + float_field(2, p.score) + varint_field(3, p.type));
}

// A model: pieces, then the trainer and normalizer specs' fields as given (already encoded).
inline std::string model(const std::vector<Piece>& pieces, const std::string& trainer = "",
                         const std::string& normalizer = "") {
  std::string out;
  for (const Piece& p : pieces) out += piece(p);
  out += bytes_field(2, varint_field(3, 1) + trainer);  // model_type: unigram
  out += bytes_field(3, normalizer);
  return out;
}

// A precompiled charsmap: the trie as 32-bit little-endian units, then the targets.
inline std::string charsmap(const std::vector<std::uint32_t>& units, const std::string& targets) {
  std::string out;
  const std::uint32_t n = static_cast<std::uint32_t>(units.size() * 4);
  for (int k = 0; k < 4; ++k) out += static_cast<char>((n >> (8 * k)) & 0xFF);
  for (std::uint32_t u : units)
    for (int k = 0; k < 4; ++k) out += static_cast<char>((u >> (8 * k)) & 0xFF);
  return out + targets;
}

}  // namespace attnscope::spm_writer
