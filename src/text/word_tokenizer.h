#pragma once
#include "text/tokenizer.h"

namespace attnscope {

// One token per whitespace-separated word; optionally each ASCII punctuation mark on its own.
class WordTokenizer : public Tokenizer {
 public:
  WordTokenizer(bool lowercase, bool split_punctuation)
      : lowercase_(lowercase), split_punctuation_(split_punctuation) {}
  bool split_within(const std::string& text, std::size_t max_pieces, std::vector<std::string>& pieces) const override;
  std::string join(const std::vector<std::string>& pieces) const override;
  std::string to_json() const override;

 private:
  bool lowercase_;
  bool split_punctuation_;
};

}  // namespace attnscope
