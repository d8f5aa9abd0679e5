#pragma once
#include <unordered_map>

#include "text/tokenizer.h"

namespace attnscope {

// Byte-pair encoding over code points with a SentencePiece-style word-start marker "▁"
// (U+2581), so detokenisation is exact: "A dog." -> ["▁A", "▁dog", "."] -> "A dog.".
class BpeTokenizer : public Tokenizer {
 public:
  BpeTokenizer(std::vector<std::string> merges, bool lowercase);
  std::vector<std::string> split(const std::string& text) const override;
  std::string join(const std::vector<std::string>& pieces) const override;
  std::string to_json() const override;

  // The pieces of one normalised word.
  std::vector<std::string> split_word(const std::u32string& word) const;

 private:
  std::vector<std::string> merges_;
  std::unordered_map<std::string, int> rank_;  // "left right" -> priority (lower merges first)
  bool lowercase_;
};

}  // namespace attnscope
