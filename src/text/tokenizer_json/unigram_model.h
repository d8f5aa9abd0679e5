#pragma once
// tokenizer.json's Unigram model, as the tokenizers crate's models/unigram: the segmentation of a
// word with the highest sum of entry scores (Viterbi over code points; of equal sums the first
// found), a character no entry covers scoring (lowest score - 10) as the unknown token; runs of
// unknown characters are one token (whose text is theirs), or, with byte_fallback, their UTF-8
// bytes' <0xXX> tokens where all exist.
#include <string>
#include <unordered_map>

#include "text/tokenizer_json/model.h"

namespace attnscope::tokenizer_json {

class UnigramModel : public Model {
 public:
  UnigramModel(const json& value, const std::string& path);
  void tokenize(const std::u32string& word, std::vector<ModelToken>& out) const override;
  const char* type() const override { return "Unigram"; }

 private:
  struct Node {
    std::unordered_map<char32_t, int> next;
    int id = -1;  // the entry ending here
  };
  std::vector<Node> trie_{1};
  std::vector<double> scores_;
  int unk_id_ = -1;
  double unk_score_ = 0;
  bool byte_fallback_;
  int byte_ids_[256];
};

}  // namespace attnscope::tokenizer_json
