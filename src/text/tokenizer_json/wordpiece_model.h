#pragma once
// tokenizer.json's WordPiece model, as the tokenizers crate's models/wordpiece: greedy longest
// match first, continuations with continuing_subword_prefix ("##"); a word with a part no entry
// matches, or longer than max_input_chars_per_word characters, is the one unknown token.
#include <string>

#include "text/tokenizer_json/model.h"

namespace attnscope::tokenizer_json {

class WordPieceModel : public Model {
 public:
  WordPieceModel(const json& value, const std::string& path);
  void tokenize(const std::u32string& word, std::vector<ModelToken>& out) const override;
  const char* type() const override { return "WordPiece"; }

 private:
  int unk_id_;
  std::string unk_, prefix_;
  std::size_t max_chars_;
  std::size_t longest_ = 0;  // code points of the longest entry: no match is longer
};

}  // namespace attnscope::tokenizer_json
