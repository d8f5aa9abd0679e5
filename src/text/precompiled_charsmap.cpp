#include "text/precompiled_charsmap.h"

#include <cstring>

#include "core/error.h"

namespace attnscope {
namespace {

const std::string kWhat = "SentencePiece model: the normalisation charsmap ";

std::uint32_t read_le32(const char* p) {
  std::uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(p[k])) << (8 * k);
  return v;
}

// A darts-clone unit: a label (with bit 31 set on value units, so they never match a byte), a
// has-leaf flag, and an offset to the children stored in 21 bits, shifted by 8 when bit 9 says so.
bool has_leaf(std::uint32_t unit) { return (unit >> 8) & 1; }
std::uint32_t value_of(std::uint32_t unit) { return unit & 0x7FFFFFFFu; }
std::uint32_t label_of(std::uint32_t unit) { return unit & (0x80000000u | 0xFFu); }
std::size_t offset_of(std::uint32_t unit) { return static_cast<std::size_t>(unit >> 10) << ((unit & (1u << 9)) >> 6); }

// The library collects at most this many matches per lookup and takes the longest of them.
constexpr std::size_t kMaxMatches = 32;

}  // namespace

PrecompiledCharsmap::PrecompiledCharsmap(std::string_view blob) {
  if (blob.size() <= 4) throw ModelFileError(kWhat + "is too short (" + std::to_string(blob.size()) + " bytes)");
  const std::uint32_t trie_bytes = read_le32(blob.data());
  if (trie_bytes > blob.size() - 4)
    throw ModelFileError(kWhat + "declares a " + std::to_string(trie_bytes) + "-byte trie in " +
                         std::to_string(blob.size()) + " bytes");
  if (trie_bytes < 4) throw ModelFileError(kWhat + "has an empty trie");
  units_.resize(trie_bytes / 4);
  for (std::size_t i = 0; i < units_.size(); ++i) units_[i] = read_le32(blob.data() + 4 + 4 * i);
  targets_ = std::string(blob.substr(4 + trie_bytes));
  if (!targets_.empty() && targets_.back() != '\0') throw ModelFileError(kWhat + "does not end its targets with a NUL");
  std::size_t run = 0;
  for (char c : targets_) {
    run = c == '\0' ? 0 : run + 1;
    if (run > kMaxTargetBytes)
      throw ModelFileError(kWhat + "has a target longer than " + std::to_string(kMaxTargetBytes) + " bytes");
  }
}

PrecompiledCharsmap::Match PrecompiledCharsmap::longest_prefix(std::string_view input) const {
  const auto unit_at = [&](std::size_t pos) {
    if (pos >= units_.size()) throw ModelFileError(kWhat + "trie points outside itself");
    return units_[pos];
  };
  Match best;
  std::size_t found = 0;
  std::size_t node = offset_of(unit_at(0));
  for (std::size_t i = 0; i < input.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(input[i]);
    node ^= c;
    const std::uint32_t unit = unit_at(node);
    if (label_of(unit) != c) break;
    node ^= offset_of(unit);
    if (!has_leaf(unit)) continue;
    const std::uint32_t value = value_of(unit_at(node));
    if (found++ >= kMaxMatches) continue;
    if (value >= targets_.size()) throw ModelFileError(kWhat + "has a rule whose target lies outside it");
    const char* start = targets_.data() + value;
    best.length = i + 1;
    best.replacement = std::string_view(start, std::strlen(start));  // the targets end with a NUL
  }
  return best;
}

}  // namespace attnscope
