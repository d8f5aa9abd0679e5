#pragma once
// A set of byte strings (pieces) with their ids, answering "which of them are prefixes of this
// text?" in order of length: what a trie answers, from one sorted array and one buffer of bytes
// (about 12 bytes per piece beyond the pieces' text), which matters for a 60,000-piece
// vocabulary in a browser tab. Each next byte of the text narrows the range of pieces that
// share the prefix read so far by two binary searches.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace attnscope {

class PiecePrefixIndex {
 public:
  PiecePrefixIndex() = default;
  // `pieces`: (text, id) with distinct, non-empty texts.
  explicit PiecePrefixIndex(const std::vector<std::pair<std::string_view, int>>& pieces);

  bool empty() const { return entries_.empty(); }

  // Calls visit(length, id) for each piece that is a prefix of `text`, shortest first.
  template <class Visit>
  void for_each_prefix(std::string_view text, Visit&& visit) const;

  // The length of the longest piece that is a prefix of `text`; 0 when none is.
  std::size_t longest_prefix(std::string_view text) const;

 private:
  struct Entry {
    std::uint32_t offset;  // into bytes_
    std::uint32_t length;
    int id;
  };
  std::string_view text_of(const Entry& e) const { return std::string_view(bytes_).substr(e.offset, e.length); }
  // The subrange of [lo, hi) (entries longer than `depth` that agree on their first `depth`
  // bytes) whose byte at `depth` is `c`.
  std::pair<std::size_t, std::size_t> narrow(std::size_t lo, std::size_t hi, std::size_t depth, unsigned char c) const;

  std::string bytes_;
  std::vector<Entry> entries_;  // sorted by text, bytes compared unsigned
};

template <class Visit>
void PiecePrefixIndex::for_each_prefix(std::string_view text, Visit&& visit) const {
  std::size_t lo = 0, hi = entries_.size();
  for (std::size_t depth = 0; depth < text.size() && lo < hi; ++depth) {
    // A piece of exactly `depth` bytes sorts first in its range; it was visited last round.
    if (entries_[lo].length == depth) ++lo;
    std::tie(lo, hi) = narrow(lo, hi, depth, static_cast<unsigned char>(text[depth]));
    if (lo < hi && entries_[lo].length == depth + 1) visit(depth + 1, entries_[lo].id);
  }
}

}  // namespace attnscope
