#pragma once
// The largest tables a model file may hold: vocabularies, BPE merges and SentencePiece pieces.
// Each entry costs 60 to 150 bytes once parsed (a std::string, a hash-map node, a parser's
// value), whatever few bytes it takes in the file: an empty SentencePiece piece is 2 bytes on
// disk, a merge "a b" 6. Without a bound, a 62 MiB file of them took 1.6 GB and 13 s to refuse,
// and a WebAssembly heap never gives such memory back.
//
// 2^21 = 2,097,152 entries: the largest vocabularies in use are about 1/8 of that (Gemma and
// NLLB ~256k, Llama 3 ~128k, GPT-2 ~50k) and the largest known, XLM-V's, 0.9 M; merge lists are
// about as long as their vocabularies (GPT-2 50k, Llama 3 280k). At the bound a table costs
// ~150-300 MB to load: large, but bounded, and the same in every door a model comes through.
#include <cstddef>
#include <string>

namespace attnscope {

inline constexpr std::size_t kMaxVocabulary = std::size_t{1} << 21;
inline constexpr std::size_t kMaxMerges = std::size_t{1} << 21;
inline constexpr std::size_t kMaxSentencePieces = std::size_t{1} << 21;

// Throws ModelFileError "<what> has more than <max> entries ..." when `count` > `max`.
void check_table_size(std::size_t count, std::size_t max, const std::string& what);

}  // namespace attnscope
