#include "text/tokenizer_json/wordpiece_model.h"

#include <algorithm>

#include "core/quote.h"
#include "text/utf8.h"

namespace attnscope::tokenizer_json {

WordPieceModel::WordPieceModel(const json& value, const std::string& path)
    : unk_(text(value, "unk_token", path, "[UNK]")),
      prefix_(text(value, "continuing_subword_prefix", path, "##")),
      max_chars_(static_cast<std::size_t>(integer(value, "max_input_chars_per_word", path, 100, 0, 1000000))) {
  read_vocab_object(required(value, "vocab", path), member_path(path, "vocab"));
  unk_id_ = id_of(unk_);
  if (unk_id_ < 0) fail(member_path(path, "unk_token"), quote(unk_) + " is not in the vocabulary");
  for (const std::string& e : entries_) longest_ = std::max(longest_, decode_utf8(e).size());
}

void WordPieceModel::tokenize(const std::u32string& word, std::vector<ModelToken>& out) const {
  if (word.empty()) return;
  const std::size_t first = out.size();
  const auto unknown = [&] {
    out.resize(first);
    out.push_back({unk_id_, unk_, 0, word.size()});
  };
  if (word.size() > max_chars_) return unknown();
  for (std::size_t start = 0; start < word.size();) {
    bool found = false;
    for (std::size_t end = std::min(word.size(), start + longest_); end > start; --end) {
      const std::string piece = (start == 0 ? "" : prefix_) + encode_utf8(word.substr(start, end - start));
      if (const int id = id_of(piece); id >= 0) {
        out.push_back({id, piece, start, end});
        start = end;
        found = true;
        break;
      }
    }
    if (!found) return unknown();
  }
}

}  // namespace attnscope::tokenizer_json
