#pragma once
// The sentence pairs a trainer learns from, and the limits they are held to. attnscope-cli
// train and the JavaScript trainer (through the bindings) both read pairs here, so both refuse
// the same corpora with the same messages. Every check runs as a pair arrives, before anything
// is trained or allocated for it: a hostile corpus stops at its first bad line, named.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope::train {

struct TrainPair {
  std::string source, target;
  int line = 0;  // the pairs file's line it came from (1-based); 0: given as a pair, not a line
};

// Sentence pairs a trainer takes. Every epoch trains on and then greedily decodes each pair
// (the exact-match count), so the count is epoch time as much as memory; 100,000 pairs of ~12
// words are ~30 MB of examples and already minutes per epoch natively (the toy grammar has 36).
inline constexpr int kMaxPairs = 100'000;
// Bytes of one side of a pair. A side's length in bytes bounds its words and tokens and what
// a word-level vocabulary stores for it; 4096 bytes is ~10 times the longest Multi30k sentence.
inline constexpr std::size_t kMaxSideBytes = 4096;
// Words (space-separated) and tokens of one side. A training pass holds a
// (length x length) attention matrix per head and layer with its gradient, and the model's
// positions table grows with the longest sentence: 20,000 words took 4.7 GB before this limit.
// 256 keeps each matrix at 256 KiB while being ~6 times the longest Multi30k sentence.
inline constexpr int kMaxSideTokens = 256;
// Entries of a fresh model's source or target vocabulary (the four special tokens included):
// the embeddings, the output layer and their gradients and Adam moments grow with it (a
// 50,000-word vocabulary at dModel 64 is ~50 MB of them). Multi30k's vocabularies have 8,105.
inline constexpr int kMaxVocabulary = 50'000;
// The longest line a pairs file may have: two sides, the comma and a \r.
inline constexpr std::size_t kMaxPairLineBytes = 2 * kMaxSideBytes + 2;

// Reads "source,target" lines one at a time, checking each as it arrives (one comma, both
// sides within kMaxSideBytes and kMaxSideTokens words, at most `max_pairs` pairs). Blank lines
// are skipped; a trailing \r is dropped. Throws InputError "pairs line N: ...".
class PairsReader {
 public:
  // `max_pairs`: a caller may hold the corpus to fewer pairs than kMaxPairs (the browser's
  // trainer does), never to more.
  explicit PairsReader(int max_pairs = kMaxPairs);
  void add_line(std::string_view line);
  // The pairs read; throws InputError when there were none.
  std::vector<TrainPair> finish();

 private:
  int max_pairs_;
  int line_ = 0;
  std::vector<TrainPair> pairs_;
};

// All the lines of `text` through a PairsReader.
std::vector<TrainPair> parse_pairs_csv(std::string_view text, int max_pairs = kMaxPairs);

// The checks a CSV line gets, for a pair given as two strings (the JavaScript trainer's
// [source, target] arrays): `count` pairs in all (throws when more than `max_pairs`), and each
// pair's sides.
void check_pairs(const std::vector<TrainPair>& pairs, int max_pairs = kMaxPairs);

// After tokenising: each side within kMaxSideTokens tokens ("pairs line N" or "pair N": the
// pair's `index` in its list, 0-based, names it when it came from no file).
void check_tokens(const TrainPair& pair, std::size_t index, std::size_t source_tokens, std::size_t target_tokens);

// "pairs line N" for a pair read from a file, else "pair N" (index 0-based): how messages
// name a pair.
std::string pair_name(const TrainPair& pair, std::size_t index);

}  // namespace attnscope::train
