#include "text/bpe_tokenizer.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "text/normalize.h"
#include "text/table_limits.h"
#include "text/utf8.h"

namespace attnscope {

static const std::string kWordStart = "\u2581";

BpeTokenizer::BpeTokenizer(std::vector<std::string> merges, bool lowercase)
    : merges_(std::move(merges)), lowercase_(lowercase) {
  check_table_size(merges_.size(), kMaxMerges, "the BPE merge list");
  const auto intern = [&](const std::string& symbol) {
    const auto [it, added] = symbol_ids_.emplace(symbol, static_cast<int>(symbols_.size()));
    if (added) {
      symbols_.push_back(symbol);
      longest_symbol_ = std::max(longest_symbol_, decode_utf8(symbol).size());
    }
    return it->second;
  };
  for (int i = 0; i < static_cast<int>(merges_.size()); ++i) {
    const std::string& m = merges_[i];
    const std::size_t space = m.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == m.size() ||
        m.find(' ', space + 1) != std::string::npos)
      throw ModelFileError("BPE merge " + std::to_string(i) + " '" + m + "' is not of the form 'left right'");
    const std::string left = m.substr(0, space), right = m.substr(space + 1);
    const int left_id = intern(left), right_id = intern(right);
    // A repeated merge keeps its first (highest-priority) rank.
    table_.add(left_id, right_id, {i, intern(left + right)}, /*keep_first=*/true);
  }
}

// A symbol no merge names gets a negative id, -1 - (its index in `unknown`): it never merges.
std::vector<int> BpeTokenizer::symbols_of(const std::u32string& word, std::vector<std::string>& unknown) const {
  std::vector<int> ids;
  ids.reserve(word.size() + 1);
  const auto add = [&](std::string symbol) {
    const auto it = symbol_ids_.find(symbol);
    if (it != symbol_ids_.end()) {
      ids.push_back(it->second);
    } else {
      ids.push_back(-1 - static_cast<int>(unknown.size()));
      unknown.push_back(std::move(symbol));
    }
  };
  add(kWordStart);
  for (char32_t c : word) add(encode_utf8(c));
  return ids;
}

std::vector<std::string> BpeTokenizer::pieces_of(const std::vector<int>& ids, const std::vector<std::string>& unknown) const {
  std::vector<std::string> pieces;
  pieces.reserve(ids.size());
  for (int id : ids) pieces.push_back(id >= 0 ? symbols_[static_cast<std::size_t>(id)] : unknown[static_cast<std::size_t>(-1 - id)]);
  return pieces;
}

std::vector<std::string> BpeTokenizer::split_word(const std::u32string& word) const {
  std::vector<std::string> unknown;
  std::vector<int> ids = symbols_of(word, unknown);
  return pieces_of(bpe_merge(std::move(ids), table_), unknown);
}

std::vector<std::string> BpeTokenizer::split_word_reference(const std::u32string& word) const {
  std::vector<std::string> unknown;
  std::vector<int> ids = symbols_of(word, unknown);
  return pieces_of(bpe_merge_reference(std::move(ids), table_), unknown);
}

bool BpeTokenizer::split_within(const std::string& text, std::size_t max_pieces, std::vector<std::string>& pieces) const {
  const std::size_t base = pieces.size();
  for (const std::u32string& word : split_words(text, lowercase_)) {
    // The word's marker and code points make at least this many pieces, as no piece is longer
    // than the longest symbol: a word too long for the limit is refused before it is merged.
    const std::size_t at_least = (word.size() + 1 + longest_symbol_ - 1) / longest_symbol_;
    if (at_least > max_pieces - (pieces.size() - base)) return false;
    for (std::string& piece : split_word(word)) pieces.push_back(std::move(piece));
    if (pieces.size() - base > max_pieces) {
      pieces.resize(base + max_pieces + 1);  // the rest of the word's pieces are past the limit
      return false;
    }
  }
  return true;
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
