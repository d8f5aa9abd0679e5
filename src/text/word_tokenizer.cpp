#include "text/word_tokenizer.h"

#include <nlohmann/json.hpp>

#include "text/normalize.h"
#include "text/utf8.h"

namespace attnscope {

static bool is_ascii_punctuation(char32_t c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
}

bool WordTokenizer::split_within(const std::string& text, std::size_t max_pieces,
                                 std::vector<std::string>& pieces) const {
  const std::size_t base = pieces.size();
  const auto over = [&] { return pieces.size() - base > max_pieces; };
  for (const std::u32string& word : split_words(text, lowercase_)) {
    if (!split_punctuation_) {
      pieces.push_back(encode_utf8(word));
      if (over()) return false;
      continue;
    }
    std::u32string run;
    for (char32_t c : word) {
      if (!is_ascii_punctuation(c)) {
        run.push_back(c);
        continue;
      }
      if (!run.empty()) pieces.push_back(encode_utf8(run));
      run.clear();
      if (over()) return false;
      pieces.push_back(encode_utf8(c));
      if (over()) return false;
    }
    if (!run.empty()) pieces.push_back(encode_utf8(run));
    if (over()) return false;
  }
  return true;
}

std::string WordTokenizer::join(const std::vector<std::string>& pieces) const {
  std::string out;
  for (const std::string& p : pieces) {
    if (!out.empty()) out += ' ';
    out += p;
  }
  return out;
}

std::string WordTokenizer::to_json() const {
  return nlohmann::json{{"type", "word"}, {"lowercase", lowercase_}, {"split_punctuation", split_punctuation_}}
      .dump();
}

}  // namespace attnscope
