#pragma once
// SentencePiece's normalisation rules as a `.model` stores them (NormalizerSpec.
// precompiled_charsmap): a little-endian uint32 byte count, that many bytes of a darts-clone
// double-array trie over the rules' source byte strings, then the rules' target strings, each
// ending in a NUL; a trie leaf's value is the offset of its target. The lookup is
// sentencepiece's Normalizer::NormalizePrefix: the longest rule that is a prefix of the input.
// Every index into the trie and the targets is checked, so a corrupt table is a ModelFileError.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

class PrecompiledCharsmap {
 public:
  // The longest target a rule may have. Real tables (NFKC and its variants) stay under 40 bytes
  // (U+FDFA's 18 characters); the bound keeps a hostile table from multiplying a text's size.
  static constexpr std::size_t kMaxTargetBytes = 256;

  explicit PrecompiledCharsmap(std::string_view blob);

  struct Match {
    std::size_t length = 0;        // bytes of the input the rule consumes; 0 = no rule applies
    std::string_view replacement;  // what they become (may be empty: the rule deletes them)
  };
  Match longest_prefix(std::string_view input) const;

 private:
  std::vector<std::uint32_t> units_;
  std::string targets_;
};

}  // namespace attnscope
