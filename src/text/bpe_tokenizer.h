#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "text/bpe_merge.h"
#include "text/tokenizer.h"

namespace attnscope {

// Byte-pair encoding over code points with a SentencePiece-style word-start marker "▁"
// (U+2581), so detokenisation is exact: "A dog." -> ["▁A", "▁dog", "."] -> "A dog.".
class BpeTokenizer : public Tokenizer {
 public:
  // `merges`: "left right" in rank order; a merge listed twice keeps its first rank. More than
  // kMaxMerges (text/vocabulary.h) is a ModelFileError.
  BpeTokenizer(std::vector<std::string> merges, bool lowercase);
  bool split_within(const std::string& text, std::size_t max_pieces, std::vector<std::string>& pieces) const override;
  std::string join(const std::vector<std::string>& pieces) const override;
  std::string to_json() const override;

  // The pieces of one normalised word.
  std::vector<std::string> split_word(const std::u32string& word) const;
  // The same by the plain quadratic merge loop (text/bpe_merge.h), to test split_word against.
  std::vector<std::string> split_word_reference(const std::u32string& word) const;

 private:
  std::vector<int> symbols_of(const std::u32string& word, std::vector<std::string>& unknown) const;
  std::vector<std::string> pieces_of(const std::vector<int>& ids, const std::vector<std::string>& unknown) const;

  std::vector<std::string> merges_;
  std::vector<std::string> symbols_;  // every merge's parts and result, by id
  std::unordered_map<std::string, int> symbol_ids_;
  BpeMergeTable table_;
  std::size_t longest_symbol_ = 1;  // in code points: a word of n code points has >= n / this pieces
  bool lowercase_;
};

}  // namespace attnscope
