#pragma once
// Byte-pair merging (Sennrich et al. 2016) over symbol ids, the rule of openai/gpt-2's
// encoder.py bpe() that word-level BPE (text/bpe_tokenizer.h) and byte-level BPE
// (text/byte_bpe_tokenizer.h) share: while some adjacent pair has a merge, take the pair of
// lowest rank and merge all its occurrences, left to right, without overlap ("a a a" -> "aa a").
//
// bpe_merge() does this with a priority queue over adjacent pairs, ordered by (rank, position),
// as Hugging Face tokenizers' Word::merge_all does: O(n log n) for n symbols. Scanning for the
// best pair after every merge, as encoder.py does, is O(n^2) and took a minute on a 1 MB word.
// bpe_merge_reference() is that plain loop, kept to test the queue against.
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace attnscope {

class BpeMergeTable {
 public:
  struct Merge {
    int rank;    // lower merges first
    int result;  // the merged symbol's id
  };
  // Adds the merge of (left, right), keeping an earlier one of the same pair when `keep_first`
  // (else the later one replaces it). Ids are >= 0.
  void add(int left, int right, Merge merge, bool keep_first);
  // The merge of (left, right); nullptr when there is none or either id is negative (a symbol
  // no merge knows).
  const Merge* find(int left, int right) const;
  std::size_t size() const { return merges_.size(); }

 private:
  static std::uint64_t key(int left, int right) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) | static_cast<std::uint32_t>(right);
  }
  std::unordered_map<std::uint64_t, Merge> merges_;
};

// In what order merges are applied when a merge makes a pair of a lower rank than others waiting:
// encoder.py's (every occurrence of the lowest rank first, then the pairs they made), or Hugging
// Face tokenizers' Word::merge_all (one merge at a time, always the lowest rank, then the leftmost).
// The two differ only for merge lists where a merged symbol has a merge ranked before its own.
enum class MergeOrder { ByRank, OneAtATime };

// The symbols after every merge `table` allows. With `sizes`, also how many of the given symbols
// each resulting one is made of.
std::vector<int> bpe_merge(std::vector<int> symbols, const BpeMergeTable& table, MergeOrder order = MergeOrder::ByRank,
                           std::vector<int>* sizes = nullptr);
// The same, by the plain quadratic loop.
std::vector<int> bpe_merge_reference(std::vector<int> symbols, const BpeMergeTable& table);

}  // namespace attnscope
