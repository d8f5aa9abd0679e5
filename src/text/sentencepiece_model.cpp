#include "text/sentencepiece_model.h"

#include <cmath>
#include <cstdio>
#include <unordered_set>

#include "core/error.h"
#include "core/quote.h"
#include "text/protobuf_wire.h"
#include "text/table_limits.h"

namespace attnscope {
namespace {

const std::string kWhat = "SentencePiece model";

// Field numbers of sentencepiece_model.proto.
namespace field {
constexpr std::uint32_t kPieces = 1, kTrainerSpec = 2, kNormalizerSpec = 3, kDenormalizerSpec = 5;
constexpr std::uint32_t kPieceText = 1, kPieceScore = 2, kPieceType = 3;
constexpr std::uint32_t kModelType = 3, kTreatWhitespaceAsSuffix = 24, kByteFallback = 35, kUnkSurface = 44;
constexpr std::uint32_t kNormalizerName = 1, kCharsmap = 2, kAddDummyPrefix = 3, kRemoveExtraWhitespaces = 4,
                        kEscapeWhitespaces = 5;
}  // namespace field

[[noreturn]] void fail(const std::string& what) { throw ModelFileError(kWhat + ": " + what); }

// A piece and a view of its text in the model's bytes.
SentencePieceModel::Piece read_piece(std::string_view message, std::size_t index, std::string_view& text) {
  SentencePieceModel::Piece p;
  WireReader r(message, kWhat + " piece " + std::to_string(index));
  while (!r.done()) {
    const WireField f = r.next();
    if (f.number == field::kPieceText) {
      text = f.bytes();
      p.text = std::string(text);
    }
    else if (f.number == field::kPieceScore) p.score = f.float32();
    else if (f.number == field::kPieceType) {
      const std::int32_t t = f.int32();
      if (t < 1 || t > 6) fail("piece " + std::to_string(index) + " has unknown type " + std::to_string(t));
      p.type = static_cast<SentencePieceModel::PieceType>(t);
    }
  }
  return p;
}

void read_trainer_spec(std::string_view message, SentencePieceModel& m) {
  WireReader r(message, kWhat + " trainer_spec");
  while (!r.done()) {
    const WireField f = r.next();
    if (f.number == field::kModelType) {
      const std::int32_t t = f.int32();
      static const char* const kNames[] = {"unigram", "BPE", "word", "char"};
      m.model_type = t >= 1 && t <= 4 ? kNames[t - 1] : "unknown type " + std::to_string(t);
    } else if (f.number == field::kTreatWhitespaceAsSuffix) {
      if (f.boolean()) fail("treat_whitespace_as_suffix is not supported");
    } else if (f.number == field::kByteFallback) {
      m.byte_fallback = f.boolean();
    } else if (f.number == field::kUnkSurface) {
      m.unk_surface = std::string(f.bytes());
    }
  }
}

void read_normalizer_spec(std::string_view message, SentencePieceModel& m) {
  WireReader r(message, kWhat + " normalizer_spec");
  while (!r.done()) {
    const WireField f = r.next();
    if (f.number == field::kNormalizerName) m.normalizer_name = std::string(f.bytes());
    else if (f.number == field::kCharsmap) m.precompiled_charsmap = std::string(f.bytes());
    else if (f.number == field::kAddDummyPrefix) m.add_dummy_prefix = f.boolean();
    else if (f.number == field::kRemoveExtraWhitespaces) m.remove_extra_whitespaces = f.boolean();
    else if (f.number == field::kEscapeWhitespaces) m.escape_whitespaces = f.boolean();
  }
}

bool denormalizes(std::string_view message) {
  WireReader r(message, kWhat + " denormalizer_spec");
  bool has_charsmap = false;
  while (!r.done()) {
    const WireField f = r.next();
    if (f.number == field::kCharsmap) has_charsmap = !f.bytes().empty();
  }
  return has_charsmap;
}

// The checks of each piece, made as it is read, so that a bad table fails at its first bad piece
// instead of after the whole of it has been parsed. The library keeps two maps: normal,
// user-defined and unused pieces in one (the ones text is matched against), control, unknown and
// byte pieces in the other. A text may be in both. The sets hold views of the model's bytes.
class PieceChecker {
 public:
  void add(SentencePieceModel& m, std::string_view text, SentencePieceModel::Piece piece) {
    using Type = SentencePieceModel::PieceType;
    const std::size_t i = m.pieces.size();
    if (i == kMaxSentencePieces)
      fail("has more than " + std::to_string(kMaxSentencePieces) +
           " pieces, the most a model may have (docs/reliability.md, \"Table sizes\")");
    const int id = static_cast<int>(i);
    if (text.empty()) fail("piece " + std::to_string(i) + " is empty");
    if (!std::isfinite(piece.score)) fail("piece " + quote(piece.text) + " has a score that is not finite");
    const bool is_matched = piece.type == Type::Normal || piece.type == Type::UserDefined || piece.type == Type::Unused;
    if (!(is_matched ? matched_ : reserved_).insert(text).second) fail("piece " + quote(piece.text) + " is defined twice");
    if (piece.type == Type::Normal || piece.type == Type::UserDefined) any_matchable_ = true;
    if (piece.type == Type::Unknown) {
      if (m.unk_id >= 0) fail("has a second unknown piece, " + quote(piece.text));
      m.unk_id = id;
    }
    if (piece.type == Type::Byte) {
      const int b = byte_of_piece_text(piece.text);
      if (b < 0) fail("byte piece " + quote(piece.text) + " is not of the form <0xXX>");
      m.byte_ids[static_cast<std::size_t>(b)] = id;
      if (first_byte_piece_.empty()) first_byte_piece_ = piece.text;
    }
    m.pieces.push_back(std::move(piece));
  }

  // What only the whole model tells: its type and byte_fallback come in trainer_spec, which
  // protobuf writes after the pieces.
  void finish(const SentencePieceModel& m) const {
    if (m.model_type != "unigram")
      fail("model type " + m.model_type + " is not supported (only unigram models can be encoded)");
    if (m.pieces.empty()) fail("has no pieces");
    if (!first_byte_piece_.empty() && !m.byte_fallback)
      fail("byte piece " + quote(first_byte_piece_) + " found although byte_fallback is off");
    if (m.unk_id < 0) fail("has no unknown piece");
    if (!any_matchable_) fail("has no normal or user-defined piece to segment text with");
    if (m.byte_fallback)
      for (int b = 0; b < 256; ++b)
        if (m.byte_ids[static_cast<std::size_t>(b)] < 0)
          fail("byte_fallback is on but the byte piece " + byte_piece_text(static_cast<unsigned char>(b)) + " is missing");
  }

 private:
  std::unordered_set<std::string_view> matched_, reserved_;
  bool any_matchable_ = false;
  std::string first_byte_piece_;
};

}  // namespace

int byte_of_piece_text(std::string_view text) {
  if (text.size() != 6 || text.substr(0, 3) != "<0x" || text[5] != '>') return -1;
  int value = 0;
  for (std::size_t k = 3; k < 5; ++k) {
    const char c = text[k];
    if (c >= '0' && c <= '9') value = value * 16 + (c - '0');
    else if (c >= 'A' && c <= 'F') value = value * 16 + (c - 'A' + 10);
    else return -1;
  }
  return value;
}

std::string byte_piece_text(unsigned char byte) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "<0x%02X>", byte);
  return buffer;
}

SentencePieceModel parse_sentencepiece_model(std::string_view bytes) {
  SentencePieceModel m;
  m.byte_ids.fill(-1);
  PieceChecker pieces;
  WireReader r(bytes, kWhat);
  // Embedded messages that occur twice are merged, as protobuf does: later fields win.
  while (!r.done()) {
    const WireField f = r.next();
    if (f.number == field::kPieces) {
      std::string_view text;
      SentencePieceModel::Piece p = read_piece(f.bytes(), m.pieces.size(), text);
      pieces.add(m, text, std::move(p));
    }
    else if (f.number == field::kTrainerSpec) read_trainer_spec(f.bytes(), m);
    else if (f.number == field::kNormalizerSpec) read_normalizer_spec(f.bytes(), m);
    else if (f.number == field::kDenormalizerSpec && denormalizes(f.bytes()))
      fail("a denormalizer_spec with rules is not supported");
  }
  pieces.finish(m);
  return m;
}

}  // namespace attnscope
