#pragma once
#include <string>
#include <unordered_map>
#include <vector>

namespace attnscope {

// Token strings <-> ids. Ids are positions in the list stored in the model file.
class Vocabulary {
 public:
  Vocabulary() = default;
  // More than kMaxVocabulary tokens (text/table_limits.h) is a ModelFileError.
  explicit Vocabulary(std::vector<std::string> tokens);

  int size() const { return static_cast<int>(tokens_.size()); }
  bool contains(const std::string& token) const { return ids_.count(token) != 0; }
  // The token's id, or `fallback` when it is not in the vocabulary.
  int id(const std::string& token, int fallback) const;
  // The token string; throws IndexError for an id outside [0, size).
  const std::string& token(int id) const;
  const std::vector<std::string>& tokens() const { return tokens_; }

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int> ids_;
};

}  // namespace attnscope
