#pragma once
// The parts of a SentencePiece `.model` file (a serialized sentencepiece.ModelProto, see
// sentencepiece_model.proto in google/sentencepiece) that encoding and decoding need, read and
// checked the way the library checks them when it loads a model: one unknown piece, no piece
// defined twice, byte pieces only with byte_fallback and then all 256 of them.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

struct SentencePieceModel {
  // ModelProto.SentencePiece.Type
  enum class PieceType : std::uint8_t { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };
  struct Piece {
    std::string text;
    float score = 0.0f;
    PieceType type = PieceType::Normal;
  };

  std::vector<Piece> pieces;  // id = index

  // TrainerSpec
  std::string model_type = "unigram";  // the only one this engine encodes with
  bool byte_fallback = false;
  std::string unk_surface = " \xE2\x81\x87 ";  // " ⁇ ": what decoding writes for the <unk> piece

  // NormalizerSpec
  std::string normalizer_name;       // e.g. "nmt_nfkc", "identity" (informational: the charsmap is the rule)
  std::string precompiled_charsmap;  // empty = no normalisation
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
  bool escape_whitespaces = true;

  // Derived while checking.
  int unk_id = -1;                 // the UNKNOWN piece
  std::array<int, 256> byte_ids{};  // byte -> id of its <0xXX> piece (byte_fallback only; else -1)
};

// Reads and checks `bytes`; throws ModelFileError (message starting "SentencePiece model") when
// they are not a usable unigram model: truncated or corrupt protobuf, another model type (BPE,
// word, char), a missing or second unknown piece, a duplicate piece, a malformed byte piece,
// a denormalizer or suffix whitespace (not supported).
SentencePieceModel parse_sentencepiece_model(std::string_view bytes);

// "<0x41>" for 0x41: the text of a byte piece.
std::string byte_piece_text(unsigned char byte);
// The byte of a byte piece's text, or -1 when it is not exactly "<0x" two upper-case hex digits
// ">" (the only form the library writes and accepts).
int byte_of_piece_text(std::string_view text);

}  // namespace attnscope
