#include "text/sentencepiece_tokenizer.h"

#include <algorithm>
#include <cfloat>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "text/utf8.h"

namespace attnscope {
namespace {

// The library's penalty below the lowest piece score for a character no piece covers.
constexpr float kUnknownPenalty = 10.0f;

// The byte length of the character a lead byte announces, as the library reads it (no check of
// what follows; normalised text is valid UTF-8 anyway).
std::size_t announced_length(unsigned char lead) {
  static const unsigned char kLength[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return kLength[lead >> 4];
}

std::string replace_spaces(std::string_view piece) {
  std::string out;
  out.reserve(piece.size());
  for (std::size_t i = 0; i < piece.size();) {
    if (piece.substr(i, kSentencePieceSpace.size()) == kSentencePieceSpace) {
      out += ' ';
      i += kSentencePieceSpace.size();
    } else {
      out += piece[i++];
    }
  }
  return out;
}

// Byte pieces' bytes as text: each valid UTF-8 character as it is, each other byte as U+FFFD.
void append_bytes(std::string_view bytes, std::string& out) {
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t n = utf8_sequence_length(bytes, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(bytes.substr(i, n));
      i += n;
    }
  }
}

}  // namespace

SentencePieceTokenizer::SentencePieceTokenizer(std::string_view model_bytes)
    : model_(parse_sentencepiece_model(model_bytes)), normalizer_(model_) {
  // Like the library: FLT_MIN (the smallest positive float), not -FLT_MAX, starts the maximum,
  // so with every score negative the user-defined bonus is length * FLT_MIN - 0.1.
  min_score_ = FLT_MAX;
  max_score_ = FLT_MIN;
  std::vector<std::pair<std::string_view, int>> matched;
  for (std::size_t i = 0; i < model_.pieces.size(); ++i) {
    const SentencePieceModel::Piece& p = model_.pieces[i];
    const int id = static_cast<int>(i);
    if (p.type == Type::Normal) {
      min_score_ = std::min(min_score_, p.score);
      max_score_ = std::max(max_score_, p.score);
    }
    if (p.type == Type::Normal || p.type == Type::UserDefined || p.type == Type::Unused) {
      matched.emplace_back(p.text, id);
      matched_ids_.emplace(p.text, id);
    } else {
      reserved_ids_.emplace(p.text, id);
    }
  }
  matcher_ = PiecePrefixIndex(matched);
}

const std::string& SentencePieceTokenizer::id_to_piece(int id) const {
  if (id < 0 || id >= piece_count())
    throw IndexError("SentencePiece id " + std::to_string(id) + " is outside [0, " + std::to_string(piece_count()) + ")");
  return model_.pieces[static_cast<std::size_t>(id)].text;
}

int SentencePieceTokenizer::piece_to_id(std::string_view piece) const {
  if (auto it = reserved_ids_.find(piece); it != reserved_ids_.end()) return it->second;
  if (auto it = matched_ids_.find(piece); it != matched_ids_.end()) return it->second;
  return model_.unk_id;
}

std::vector<SentencePieceTokenizer::Span> SentencePieceTokenizer::viterbi(std::string_view normalized) const {
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  struct Best {
    int id = -1;
    float score = 0.0f;  // of the best path ending here
    std::size_t start = kNone;
  };
  const std::size_t size = normalized.size();
  const float unknown_score = min_score_ - kUnknownPenalty;
  std::vector<Best> best(size + 1);
  for (std::size_t start = 0; start < size;) {
    const float score_here = best[start].score;
    const std::size_t char_length = std::min(announced_length(static_cast<unsigned char>(normalized[start])), size - start);
    bool covered = false;  // by a piece of exactly one character
    matcher_.for_each_prefix(normalized.substr(start), [&](std::size_t length, int id) {
      if (type(id) == Type::Unused) return;
      // The library mixes double (the user-defined bonus) and float here; so does this.
      const double score = type(id) == Type::UserDefined
                               ? static_cast<double>(static_cast<float>(length) * max_score_) - 0.1
                               : static_cast<double>(model_.pieces[static_cast<std::size_t>(id)].score);
      const double candidate = score + score_here;
      Best& target = best[start + length];
      if (target.start == kNone || candidate > target.score) target = {id, static_cast<float>(candidate), start};
      if (length == char_length) covered = true;
    });
    if (!covered) {
      const float candidate = unknown_score + score_here;
      Best& target = best[start + char_length];
      if (target.start == kNone || candidate > target.score) target = {model_.unk_id, candidate, start};
    }
    start += char_length;
  }
  std::vector<Span> spans;
  for (std::size_t end = size; end > 0;) {
    const Best& b = best[end];
    if (b.start == kNone || b.start >= end) throw Error("SentencePiece segmentation lost its path");  // cannot happen
    spans.push_back({b.start, end, b.id});
    end = b.start;
  }
  std::reverse(spans.begin(), spans.end());
  return spans;
}

std::vector<SentencePieceTokenizer::Piece> SentencePieceTokenizer::encode(std::string_view text) const {
  const std::string normalized = normalizer_.normalize(text);
  std::vector<Piece> out;
  bool previous_unknown = false;
  for (const Span& s : viterbi(normalized)) {
    const std::string_view piece = std::string_view(normalized).substr(s.begin, s.end - s.begin);
    const bool unknown = s.id == model_.unk_id;
    if (unknown && model_.byte_fallback) {
      for (char c : piece) {
        const unsigned char b = static_cast<unsigned char>(c);
        out.push_back({byte_piece_text(b), model_.byte_ids[b]});
      }
    } else if (unknown && previous_unknown) {
      out.back().text += piece;  // a run of unknown characters is one unknown piece
    } else {
      out.push_back({std::string(piece), s.id});
    }
    previous_unknown = unknown;
  }
  return out;
}

std::vector<int> SentencePieceTokenizer::encode_ids(std::string_view text) const {
  std::vector<int> ids;
  for (const Piece& p : encode(text)) ids.push_back(p.id);
  return ids;
}

std::string SentencePieceTokenizer::decode_pieces(const std::vector<std::string>& pieces) const {
  std::string text, bytes;
  // The first "▁" of the text is the dummy prefix (or a space the normaliser would have
  // removed): dropped once, or, with remove_extra_whitespaces, as long as nothing was written.
  bool at_start = true, start_space_consumed = false;
  const bool strip_start = model_.add_dummy_prefix || model_.remove_extra_whitespaces;
  for (const std::string& piece : pieces) {
    const int id = piece_to_id(piece);
    if (type(id) == Type::Byte) {
      bytes += static_cast<char>(byte_of_piece_text(model_.pieces[static_cast<std::size_t>(id)].text));
      continue;
    }
    append_bytes(bytes, text);
    bytes.clear();
    if (start_space_consumed || !text.empty()) at_start = false;
    start_space_consumed = false;
    if (type(id) == Type::Control) continue;
    if (type(id) == Type::Unknown) {
      text += piece == model_.pieces[static_cast<std::size_t>(id)].text ? model_.unk_surface : piece;
      continue;
    }
    std::string_view rest = piece;
    if (at_start && strip_start && rest.substr(0, kSentencePieceSpace.size()) == kSentencePieceSpace) {
      rest.remove_prefix(kSentencePieceSpace.size());
      start_space_consumed = !model_.remove_extra_whitespaces;
    }
    text += replace_spaces(rest);
  }
  append_bytes(bytes, text);
  return text;
}

std::string SentencePieceTokenizer::decode_ids(const std::vector<int>& ids) const {
  std::vector<std::string> pieces;
  pieces.reserve(ids.size());
  for (int id : ids) {
    if (id < 0 || id >= piece_count())
      throw InputError("SentencePiece id " + std::to_string(id) + " is outside [0, " + std::to_string(piece_count()) + ")");
    pieces.push_back(model_.pieces[static_cast<std::size_t>(id)].text);
  }
  return decode_pieces(pieces);
}

bool SentencePieceTokenizer::split_within(const std::string& text, std::size_t max_pieces,
                                         std::vector<std::string>& pieces) const {
  // Viterbi needs the whole text (the best path is known only at its end); it costs the text's
  // length times the longest piece's (docs/reliability.md, "Tokenizer work").
  const std::size_t base = pieces.size();
  for (Piece& p : encode(text)) {
    pieces.push_back(std::move(p.text));
    if (pieces.size() - base > max_pieces) return false;
  }
  return true;
}

std::string SentencePieceTokenizer::join(const std::vector<std::string>& pieces) const { return decode_pieces(pieces); }

std::string SentencePieceTokenizer::to_json() const {
  nlohmann::json j = {{"type", "sentencepiece"},
                      {"model_type", model_.model_type},
                      {"normalizer", model_.normalizer_name},
                      {"pieces", model_.pieces.size()},
                      {"byte_fallback", model_.byte_fallback},
                      {"add_dummy_prefix", model_.add_dummy_prefix},
                      {"remove_extra_whitespaces", model_.remove_extra_whitespaces},
                      {"escape_whitespaces", model_.escape_whitespaces}};
  // The normaliser's name and the pieces are the model's bytes: not necessarily UTF-8.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace attnscope
