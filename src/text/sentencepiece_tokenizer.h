#pragma once
// A SentencePiece unigram model (Kudo 2018) read from its `.model` bytes, encoding and decoding
// as the sentencepiece library does (normalizer.cc, unigram_model.cc's EncodeOptimized,
// sentencepiece_processor.cc), so ids agree with models trained by it (Marian's source.spm and
// target.spm among them):
// - the text is normalised (sentencepiece_normalizer.h);
// - Viterbi picks the segmentation with the highest sum of piece scores, in float as the library
//   computes it; user-defined pieces score length * (best normal score) - 0.1, so they win
//   whenever they match; unused pieces never match;
// - a character no piece covers is the unknown id with score (lowest normal score - 10); runs of
//   them become one unknown piece, or, with byte_fallback, one <0xXX> piece per UTF-8 byte;
// - decoding turns "▁" back into spaces, drops the first one at the start of the text (when the
//   model adds a dummy prefix or removes extra white space), writes control pieces as nothing,
//   the <unk> piece as the model's unk_surface (" ⁇ "), and glues byte pieces into UTF-8 (an
//   invalid byte becomes U+FFFD).
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "text/piece_prefix_index.h"
#include "text/sentencepiece_model.h"
#include "text/sentencepiece_normalizer.h"
#include "text/tokenizer.h"

namespace attnscope {

class SentencePieceTokenizer : public Tokenizer {
 public:
  // Reads a `.model` file's bytes; throws ModelFileError when they are not a usable unigram model.
  explicit SentencePieceTokenizer(std::string_view model_bytes);
  // The lookup tables hold views of the model's own strings.
  SentencePieceTokenizer(const SentencePieceTokenizer&) = delete;
  SentencePieceTokenizer& operator=(const SentencePieceTokenizer&) = delete;

  struct Piece {
    std::string text;  // the piece; for a run of unknown characters, their normalised text
    int id;
  };
  std::vector<Piece> encode(std::string_view text) const;
  std::vector<int> encode_ids(std::string_view text) const;
  // Throws InputError for an id outside [0, piece_count()).
  std::string decode_ids(const std::vector<int>& ids) const;
  // A piece that is not in the model counts as the unknown id and is written as it is.
  std::string decode_pieces(const std::vector<std::string>& pieces) const;
  std::string normalize(std::string_view text) const { return normalizer_.normalize(text); }

  int piece_count() const { return static_cast<int>(model_.pieces.size()); }
  const std::string& id_to_piece(int id) const;  // IndexError outside [0, piece_count())
  int piece_to_id(std::string_view piece) const;  // the unknown id when absent
  int unk_id() const { return model_.unk_id; }
  const SentencePieceModel& model() const { return model_; }

  // Tokenizer: split = encode's pieces, join = decode_pieces. Through a Vocabulary (encode() in
  // tokenizer.h) an unknown run maps to the unknown id unless its text is a vocabulary entry, as
  // it does in Hugging Face's Marian tokenizer, which maps the library's pieces through vocab.json.
  bool split_within(const std::string& text, std::size_t max_pieces, std::vector<std::string>& pieces) const override;
  std::string join(const std::vector<std::string>& pieces) const override;
  // A description, not the model: {"type": "sentencepiece", "model_type": "unigram",
  // "normalizer": ..., "pieces": N, "byte_fallback": ..., ...}.
  std::string to_json() const override;

 private:
  using Type = SentencePieceModel::PieceType;
  Type type(int id) const { return model_.pieces[static_cast<std::size_t>(id)].type; }
  // The Viterbi segmentation of normalised text: (begin, end, id) per piece, unknowns unmerged.
  struct Span {
    std::size_t begin, end;
    int id;
  };
  std::vector<Span> viterbi(std::string_view normalized) const;

  SentencePieceModel model_;
  SentencePieceNormalizer normalizer_;
  PiecePrefixIndex matcher_;  // normal, user-defined and unused pieces
  std::unordered_map<std::string_view, int> matched_ids_, reserved_ids_;  // views of model_'s pieces
  float min_score_, max_score_;  // over normal pieces
};

}  // namespace attnscope
