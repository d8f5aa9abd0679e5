#include "text/wordpiece_tokenizer.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "text/unicode.h"
#include "text/utf8.h"

namespace attnscope {
namespace {

bool is_whitespace(char32_t c) {
  return c == U' ' || c == U'\t' || c == U'\n' || c == U'\r' || unicode::is_space_separator(c);
}

bool is_control(char32_t c) { return c != U'\t' && c != U'\n' && c != U'\r' && unicode::is_control(c); }

}  // namespace

bool bert_is_chinese_char(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

namespace {

// What Python's str.split() splits on once the text is cleaned (every other white space is gone).
bool splits_words(char32_t c) { return c == U' ' || c == 0x2028 || c == 0x2029; }

}  // namespace

// BERT counts every ASCII non-letter, non-digit symbol as punctuation, e.g. $ + < = > ^ ` | ~.
bool bert_is_punctuation(char32_t c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126) ||
         unicode::is_punctuation(c);
}

WordPieceTokenizer::WordPieceTokenizer(Options options, const Vocabulary& vocab)
    : options_(std::move(options)), specials_(options_.never_split), vocab_(vocab) {
  for (const std::string& w : options_.never_split_words) kept_words_.push_back(decode_utf8(w));
  for (const std::string& t : vocab_.tokens()) longest_piece_ = std::max(longest_piece_, decode_utf8(t).size());
  // Longest first, so that of two specials starting at one place the longer one is cut out.
  std::stable_sort(specials_.begin(), specials_.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::vector<std::u32string> WordPieceTokenizer::basic_words(const std::u32string& text) const {
  // Clean-up and CJK spacing.
  std::u32string clean;
  clean.reserve(text.size());
  for (char32_t c : text) {
    if (c == 0 || c == 0xFFFD || is_control(c)) continue;
    if (options_.tokenize_chinese_chars && bert_is_chinese_char(c)) {
      clean += U' ';
      clean += c;
      clean += U' ';
    } else {
      clean += is_whitespace(c) ? U' ' : c;
    }
  }
  std::vector<std::u32string> words;
  auto add = [&](std::u32string w) {
    if (w.empty()) return;
    if (is_kept_word(w)) {
      words.push_back(std::move(w));
      return;
    }
    if (options_.lowercase) w = unicode::lower(w);
    if (options_.strip_accents) w = unicode::strip_accents(w);
    std::u32string current;
    for (char32_t c : w) {
      if (bert_is_punctuation(c)) {
        if (!current.empty()) words.push_back(std::move(current));
        current.clear();
        words.push_back(std::u32string(1, c));
      } else {
        current += c;
      }
    }
    if (!current.empty()) words.push_back(std::move(current));
  };
  std::u32string word;
  for (char32_t c : clean) {
    if (splits_words(c)) {
      add(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  add(std::move(word));
  return words;
}

bool WordPieceTokenizer::is_kept_word(const std::u32string& word) const {
  return std::find(kept_words_.begin(), kept_words_.end(), word) != kept_words_.end();
}

void WordPieceTokenizer::cut(const std::u32string& word, std::vector<std::string>& pieces) const {
  if (is_kept_word(word)) {
    pieces.push_back(encode_utf8(word));
    return;
  }
  if (static_cast<int>(word.size()) > options_.max_chars_per_word) {
    pieces.push_back(options_.unk);
    return;
  }
  const std::size_t first = pieces.size();
  std::size_t start = 0;
  while (start < word.size()) {
    std::string found;
    // No piece is longer than the longest entry of the vocabulary: trying longer ones first
    // would cost (word length)^2 characters per word for nothing.
    for (std::size_t end = std::min(word.size(), start + longest_piece_); end > start; --end) {
      const std::string piece = (start == 0 ? "" : "##") + encode_utf8(word.substr(start, end - start));
      if (vocab_.contains(piece)) {
        found = piece;
        start = end;
        break;
      }
    }
    if (found.empty()) {  // no piece starts here: the whole word is unknown
      pieces.resize(first);
      pieces.push_back(options_.unk);
      return;
    }
    pieces.push_back(std::move(found));
  }
}

bool WordPieceTokenizer::split_within(const std::string& text, std::size_t max_pieces,
                                      std::vector<std::string>& pieces) const {
  const std::size_t base = pieces.size();
  const auto over = [&] { return pieces.size() - base > max_pieces; };
  auto run = [&](const std::string& stretch) {
    for (const std::u32string& w : basic_words(decode_utf8(stretch))) {
      cut(w, pieces);
      if (over()) {
        pieces.resize(base + max_pieces + 1);  // the rest of the word's pieces are past the limit
        return false;
      }
    }
    return true;
  };
  std::size_t begin = 0, i = 0;
  while (i < text.size()) {
    const auto hit = std::find_if(specials_.begin(), specials_.end(),
                                  [&](const std::string& s) { return !s.empty() && text.compare(i, s.size(), s) == 0; });
    if (hit == specials_.end()) {
      ++i;
      continue;
    }
    if (!run(text.substr(begin, i - begin))) return false;
    pieces.push_back(*hit);
    if (over()) return false;
    i += hit->size();
    begin = i;
  }
  return run(text.substr(begin));
}

std::string WordPieceTokenizer::join(const std::vector<std::string>& pieces) const {
  std::string out;
  for (const std::string& p : pieces) {
    if (p.size() >= 2 && p.compare(0, 2, "##") == 0 && !out.empty()) out += p.substr(2);
    else out += (out.empty() ? "" : " ") + p;
  }
  return out;
}

std::string WordPieceTokenizer::to_json() const {
  nlohmann::json j{{"type", "wordpiece"},
                   {"lowercase", options_.lowercase},
                   {"unk", options_.unk},
                   {"max_chars_per_word", options_.max_chars_per_word},
                   {"never_split", options_.never_split}};
  // The settings BERT's original tokenizer has no way to change are written only when changed, so
  // a spec without them reads back as it was written.
  if (options_.strip_accents != options_.lowercase) j["strip_accents"] = options_.strip_accents;
  if (!options_.tokenize_chinese_chars) j["tokenize_chinese_chars"] = false;
  if (!options_.never_split_words.empty()) j["never_split_words"] = options_.never_split_words;
  return j.dump();
}

}  // namespace attnscope
