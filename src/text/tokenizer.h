#pragma once
// Text <-> pieces. A Tokenizer only cuts text into pieces and glues pieces back; mapping pieces
// to ids is the Vocabulary's job (see encode()/decode() below).
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "text/vocabulary.h"

namespace attnscope {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // The pieces of `text`.
  std::vector<std::string> split(const std::string& text) const;
  // The pieces of `text` appended to `pieces`, true when there are at most `max_pieces` of them
  // (what `pieces` held before does not count). Otherwise false, as soon as that is certain:
  // `pieces` then holds some first pieces (at most max_pieces + 1), and the work stops there
  // instead of going on through the rest of the text, so that a model's position limit also
  // bounds what an over-long input costs (docs/reliability.md, "Tokenizer work").
  virtual bool split_within(const std::string& text, std::size_t max_pieces, std::vector<std::string>& pieces) const = 0;
  virtual std::string join(const std::vector<std::string>& pieces) const = 0;
  virtual std::string to_json() const = 0;

  // Builds the tokenizer described by the `tokenizer` metadata JSON (models/FORMAT.md). A
  // "wordpiece" tokenizer cuts words into pieces of `vocab` (the model's vocabulary).
  static std::unique_ptr<Tokenizer> from_json(const std::string& text, const Vocabulary& vocab = Vocabulary());
};

inline constexpr std::size_t kNoPieceLimit = std::numeric_limits<std::size_t>::max();

struct Encoded {
  std::vector<std::string> pieces;
  std::vector<int> ids;
  std::vector<std::string> unknown;  // pieces that mapped to <unk>, in order
  // The text has more than encode()'s `max_pieces` pieces; the lists above hold only some first
  // ones (Tokenizer::split_within).
  bool over_limit = false;
};

Encoded encode(const Tokenizer& tokenizer, const Vocabulary& vocab, const std::string& text, int unk_id,
               std::size_t max_pieces = kNoPieceLimit);

// Text of `ids`, skipping the ids in `skip` (e.g. <s>, </s>, <pad>).
std::string decode(const Tokenizer& tokenizer, const Vocabulary& vocab, const std::vector<int>& ids,
                   const std::vector<int>& skip);

}  // namespace attnscope
