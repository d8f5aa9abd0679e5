#include "text/piece_prefix_index.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include "core/error.h"

namespace attnscope {

PiecePrefixIndex::PiecePrefixIndex(const std::vector<std::pair<std::string_view, int>>& pieces) {
  std::size_t total = 0;
  for (const auto& p : pieces) total += p.first.size();
  if (total > std::numeric_limits<std::uint32_t>::max()) throw ModelFileError("pieces hold more than 4 GiB of text");
  bytes_.reserve(total);
  entries_.reserve(pieces.size());
  for (const auto& p : pieces) {
    entries_.push_back({static_cast<std::uint32_t>(bytes_.size()), static_cast<std::uint32_t>(p.first.size()), p.second});
    bytes_.append(p.first);
  }
  // std::string_view compares bytes as unsigned char, as narrow() does.
  std::sort(entries_.begin(), entries_.end(), [&](const Entry& a, const Entry& b) { return text_of(a) < text_of(b); });
}

std::pair<std::size_t, std::size_t> PiecePrefixIndex::narrow(std::size_t lo, std::size_t hi, std::size_t depth,
                                                             unsigned char c) const {
  const auto byte_at = [&](const Entry& e) { return static_cast<unsigned char>(bytes_[e.offset + depth]); };
  if (lo == hi) return {lo, hi};
  // The whole range agrees (the range is sorted, so its ends tell): in a table of pieces that
  // are prefixes of each other ("a", "aa", "aaa", ...) every step is this one, in O(1).
  if (byte_at(entries_[lo]) == c && byte_at(entries_[hi - 1]) == c) return {lo, hi};
  const auto first = entries_.begin() + static_cast<std::ptrdiff_t>(lo);
  const auto last = entries_.begin() + static_cast<std::ptrdiff_t>(hi);
  const auto begin = std::lower_bound(first, last, c, [&](const Entry& e, unsigned char v) { return byte_at(e) < v; });
  const auto end = std::upper_bound(begin, last, c, [&](unsigned char v, const Entry& e) { return v < byte_at(e); });
  return {static_cast<std::size_t>(begin - entries_.begin()), static_cast<std::size_t>(end - entries_.begin())};
}

std::size_t PiecePrefixIndex::longest_prefix(std::string_view text) const {
  std::size_t longest = 0;
  for_each_prefix(text, [&](std::size_t length, int) { longest = length; });
  return longest;
}

}  // namespace attnscope
