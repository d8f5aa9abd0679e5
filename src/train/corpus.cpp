#include "train/corpus.h"

#include <algorithm>

#include "core/error.h"
#include "core/quote.h"

namespace attnscope::train {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Space-separated words: a lower bound on the tokens any of the engine's tokenizers makes of
// the text (each word is at least one token), so counting them refuses a long side before
// anything tokenises it.
std::size_t words_in(std::string_view text) {
  std::size_t words = 0;
  bool in_word = false;
  for (char c : text) {
    if (is_space(c)) in_word = false;
    else if (!in_word) in_word = true, ++words;
  }
  return words;
}

void check_side(const std::string& where, const char* side, std::string_view text) {
  if (text.find_first_not_of(" \t\r\v\f") == std::string_view::npos)
    throw InputError(where + ": the " + side + " is empty");
  if (text.size() > kMaxSideBytes)
    throw InputError(where + ": the " + side + " has " + std::to_string(text.size()) + " bytes, more than the " +
                     std::to_string(kMaxSideBytes) + " a sentence may have");
  const std::size_t words = words_in(text);
  if (words > static_cast<std::size_t>(kMaxSideTokens))
    throw InputError(where + ": the " + side + " has " + std::to_string(words) + " words, more than the " +
                     std::to_string(kMaxSideTokens) + " a sentence may have");
}

std::string too_many(int max_pairs) {
  std::string out = "more than " + std::to_string(max_pairs) + " sentence pairs";
  if (max_pairs < kMaxPairs) out += " (this trainer's limit; attnscope-cli train takes " + std::to_string(kMaxPairs) + ")";
  return out;
}

}  // namespace

std::string pair_name(const TrainPair& pair, std::size_t index) {
  return pair.line > 0 ? "pairs line " + std::to_string(pair.line) : "pair " + std::to_string(index + 1);
}

PairsReader::PairsReader(int max_pairs) : max_pairs_(std::clamp(max_pairs, 1, kMaxPairs)) {}

void PairsReader::add_line(std::string_view line) {
  const std::string where = "pairs line " + std::to_string(++line_);
  if (line.size() > kMaxPairLineBytes)
    throw InputError(where + " is longer than " + std::to_string(kMaxPairLineBytes) + " bytes (each side may have " +
                     std::to_string(kMaxSideBytes) + ")");
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) return;
  const std::size_t comma = line.find(',');
  if (comma == std::string_view::npos || line.find(',', comma + 1) != std::string_view::npos)
    throw InputError(where + " needs exactly one comma (source,target): " + quote(line));
  if (static_cast<int>(pairs_.size()) >= max_pairs_) throw InputError(where + ": " + too_many(max_pairs_));
  check_side(where, "source", line.substr(0, comma));
  check_side(where, "target", line.substr(comma + 1));
  pairs_.push_back({std::string(line.substr(0, comma)), std::string(line.substr(comma + 1)), line_});
}

std::vector<TrainPair> PairsReader::finish() {
  if (pairs_.empty()) throw InputError("no sentence pairs given");
  return std::move(pairs_);
}

std::vector<TrainPair> parse_pairs_csv(std::string_view text, int max_pairs) {
  PairsReader reader(max_pairs);
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    reader.add_line(text.substr(start, end - start));
    start = end + 1;
  }
  return reader.finish();
}

void check_pairs(const std::vector<TrainPair>& pairs, int max_pairs) {
  if (pairs.empty()) throw InputError("no sentence pairs given");
  max_pairs = std::clamp(max_pairs, 1, kMaxPairs);
  if (pairs.size() > static_cast<std::size_t>(max_pairs))
    throw InputError(std::to_string(pairs.size()) + " pairs are " + too_many(max_pairs));
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    check_side(pair_name(pairs[i], i), "source", pairs[i].source);
    check_side(pair_name(pairs[i], i), "target", pairs[i].target);
  }
}

void check_tokens(const TrainPair& pair, std::size_t index, std::size_t source_tokens, std::size_t target_tokens) {
  for (auto [side, n] : {std::pair<const char*, std::size_t>{"source", source_tokens}, {"target", target_tokens}})
    if (n > static_cast<std::size_t>(kMaxSideTokens))
      throw InputError(pair_name(pair, index) + ": the " + side + " has " + std::to_string(n) +
                       " tokens, more than the " + std::to_string(kMaxSideTokens) + " a sentence may have");
}

}  // namespace attnscope::train
