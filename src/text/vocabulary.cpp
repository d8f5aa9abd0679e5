#include "text/vocabulary.h"

#include "core/error.h"
#include "text/table_limits.h"

namespace attnscope {

Vocabulary::Vocabulary(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {
  check_table_size(tokens_.size(), kMaxVocabulary, "the vocabulary");
  for (int i = 0; i < size(); ++i) {
    // A duplicate would make id(token(i)) != i; keep the first, as the file order is the truth.
    ids_.emplace(tokens_[i], i);
  }
}

int Vocabulary::id(const std::string& token, int fallback) const {
  auto it = ids_.find(token);
  return it == ids_.end() ? fallback : it->second;
}

const std::string& Vocabulary::token(int id) const {
  if (id < 0 || id >= size())
    throw IndexError("token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                     std::to_string(size()) + ")");
  return tokens_[id];
}

}  // namespace attnscope
