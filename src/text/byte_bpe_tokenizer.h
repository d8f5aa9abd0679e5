#pragma once
// GPT-2's byte-level BPE (Radford et al. 2019; openai/gpt-2 src/encoder.py, Hugging Face's
// GPT2Tokenizer): the text is cut into pre-tokens (text/byte_bpe_pretokenizer.h), each pre-token's
// UTF-8 bytes become symbols of the byte alphabet (text/byte_bpe_alphabet.h), and merges are
// applied by rank, the lowest-ranked pair present first, all its occurrences left to right, until
// no pair of symbols has a merge. No normalisation, no unknown piece: every piece is in the
// vocabulary, or encoding fails naming it. models/FORMAT.md ("byte_bpe") has the rules.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "text/bpe_merge.h"
#include "text/tokenizer.h"

namespace attnscope {

class ByteBpeTokenizer : public Tokenizer {
 public:
  // `merges`: "left right" in rank order (GPT-2's vocab.bpe without its "#version" line); every
  // merge's two symbols and its result must be pieces of `vocab` (copied), else ModelFileError;
  // so must there be at most kMaxMerges (text/table_limits.h).
  ByteBpeTokenizer(std::vector<std::string> merges, const Vocabulary& vocab);

  // Throws InputError when a byte of the text stands for a piece the vocabulary lacks.
  bool split_within(const std::string& text, std::size_t max_pieces, std::vector<std::string>& pieces) const override;
  // text/byte_bpe_decode.h: the bytes of the pieces as UTF-8, ill-formed parts as U+FFFD.
  std::string join(const std::vector<std::string>& pieces) const override;
  // A description, without the merges: {"type": "byte_bpe", "merge_count": N}.
  std::string to_json() const override;

  // The vocabulary ids of one pre-token's pieces (encoder.py's bpe()).
  std::vector<int> merge(std::string_view pretoken) const;
  // The same by the plain quadratic merge loop (text/bpe_merge.h), to test merge() against.
  std::vector<int> merge_reference(std::string_view pretoken) const;

 private:
  std::vector<int> byte_symbols(std::string_view pretoken) const;

  std::size_t merge_count_;
  BpeMergeTable merges_;     // (left id, right id) -> rank and result
  std::size_t longest_ = 1;  // bytes of the longest merge result: a pre-token of n bytes has >= n / this pieces
  std::array<int, 256> byte_ids_;                     // each byte's piece id, -1 when the vocabulary lacks it
  Vocabulary vocab_;
};

}  // namespace attnscope
