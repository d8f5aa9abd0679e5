#include "text/bpe_tokenizer.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "text/normalize.h"
#include "text/utf8.h"

namespace attnscope {

static const std::string kWordStart = "\u2581";

BpeTokenizer::BpeTokenizer(std::vector<std::string> merges, bool lowercase)
    : merges_(std::move(merges)), lowercase_(lowercase) {
  for (int i = 0; i < static_cast<int>(merges_.size()); ++i) {
    const std::string& m = merges_[i];
    const std::size_t space = m.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == m.size() ||
        m.find(' ', space + 1) != std::string::npos)
      throw ModelFileError("BPE merge " + std::to_string(i) + " '" + m + "' is not of the form 'left right'");
    rank_.emplace(m, i);  // a repeated merge keeps its first (highest-priority) rank
  }
}

std::vector<std::string> BpeTokenizer::split_word(const std::u32string& word) const {
  std::vector<std::string> symbols;
  symbols.reserve(word.size() + 1);
  symbols.push_back(kWordStart);
  for (char32_t c : word) symbols.push_back(encode_utf8(c));

  constexpr int kNone = std::numeric_limits<int>::max();
  while (symbols.size() > 1) {
    int best = kNone;
    std::string best_pair;
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      auto it = rank_.find(symbols[i] + ' ' + symbols[i + 1]);
      if (it != rank_.end() && it->second < best) {
        best = it->second;
        best_pair = it->first;
      }
    }
    if (best == kNone) break;
    // Merge every non-overlapping occurrence of the best pair, left to right.
    const std::size_t space = best_pair.find(' ');
    const std::string left = best_pair.substr(0, space), right = best_pair.substr(space + 1);
    std::vector<std::string> merged;
    merged.reserve(symbols.size());
    for (std::size_t i = 0; i < symbols.size(); ++i) {
      if (i + 1 < symbols.size() && symbols[i] == left && symbols[i + 1] == right) {
        merged.push_back(left + right);
        ++i;
      } else {
        merged.push_back(std::move(symbols[i]));
      }
    }
    symbols = std::move(merged);
  }
  return symbols;
}

std::vector<std::string> BpeTokenizer::split(const std::string& text) const {
  std::vector<std::string> pieces;
  for (const std::u32string& word : split_words(text, lowercase_))
    for (std::string& piece : split_word(word)) pieces.push_back(std::move(piece));
  return pieces;
}

std::string BpeTokenizer::join(const std::vector<std::string>& pieces) const {
  std::string text;
  for (const std::string& p : pieces) text += p;
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t hit = text.find(kWordStart, pos);
    out.append(text, pos, hit == std::string::npos ? std::string::npos : hit - pos);
    if (hit == std::string::npos) break;
    out += ' ';
    pos = hit + kWordStart.size();
  }
  if (!out.empty() && out[0] == ' ') out.erase(0, 1);
  return out;
}

std::string BpeTokenizer::to_json() const {
  return nlohmann::json{{"type", "bpe"}, {"lowercase", lowercase_}, {"merges", merges_}}.dump();
}

}  // namespace attnscope
