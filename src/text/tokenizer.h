#pragma once
// Text <-> pieces. A Tokenizer only cuts text into pieces and glues pieces back; mapping pieces
// to ids is the Vocabulary's job (see encode()/decode() below).
#include <memory>
#include <string>
#include <vector>

#include "text/vocabulary.h"

namespace attnscope {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  virtual std::vector<std::string> split(const std::string& text) const = 0;
  virtual std::string join(const std::vector<std::string>& pieces) const = 0;
  virtual std::string to_json() const = 0;

  // Builds the tokenizer described by the `tokenizer` metadata JSON (models/FORMAT.md). A
  // "wordpiece" tokenizer cuts words into pieces of `vocab` (the model's vocabulary).
  static std::unique_ptr<Tokenizer> from_json(const std::string& text, const Vocabulary& vocab = Vocabulary());
};

struct Encoded {
  std::vector<std::string> pieces;
  std::vector<int> ids;
  std::vector<std::string> unknown;  // pieces that mapped to <unk>, in order
};

Encoded encode(const Tokenizer& tokenizer, const Vocabulary& vocab, const std::string& text, int unk_id);

// Text of `ids`, skipping the ids in `skip` (e.g. <s>, </s>, <pad>).
std::string decode(const Tokenizer& tokenizer, const Vocabulary& vocab, const std::vector<int>& ids,
                   const std::vector<int>& skip);

}  // namespace attnscope
