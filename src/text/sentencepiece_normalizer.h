#pragma once
// SentencePiece's normaliser (sentencepiece's normalizer.cc): the model's charsmap rules, then
// its white-space options:
// - user-defined pieces are copied as they are, never normalised;
// - each longest charsmap rule replaces its source; a byte that starts no valid UTF-8 character
//   becomes U+FFFD; anything else is copied one character at a time;
// - remove_extra_whitespaces: drop leading and trailing spaces and collapse runs of them (seen
//   after the rules, so U+3000 or a tab that a rule turns into a space counts);
// - add_dummy_prefix: a space before the text (not before an empty one);
// - escape_whitespaces: every space becomes U+2581 "▁".
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "text/piece_prefix_index.h"
#include "text/precompiled_charsmap.h"
#include "text/sentencepiece_model.h"

namespace attnscope {

// U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's visible space.
inline constexpr std::string_view kSentencePieceSpace = "\xE2\x96\x81";

class SentencePieceNormalizer {
 public:
  explicit SentencePieceNormalizer(const SentencePieceModel& model);
  std::string normalize(std::string_view input) const;

 private:
  // What the start of `input` becomes and how many bytes of it that consumes (at least 1).
  std::pair<std::string_view, std::size_t> normalize_prefix(std::string_view input) const;

  std::unique_ptr<PrecompiledCharsmap> charsmap_;  // null: no rules (identity)
  PiecePrefixIndex user_defined_;
  bool add_dummy_prefix_;
  bool remove_extra_whitespaces_;
  bool escape_whitespaces_;
};

}  // namespace attnscope
