#include "text/tokenizer_json/bpe_model.h"

#include <algorithm>
#include <cstdio>

#include "core/quote.h"
#include "text/table_limits.h"
#include "text/utf8.h"

namespace attnscope::tokenizer_json {

BpeModel::BpeModel(const json& value, const std::string& path)
    : prefix_(text(value, "continuing_subword_prefix", path, "")),
      suffix_(text(value, "end_of_word_suffix", path, "")),
      fuse_unk_(flag(value, "fuse_unk", path, false)),
      byte_fallback_(flag(value, "byte_fallback", path, false)),
      ignore_merges_(flag(value, "ignore_merges", path, false)) {
  const json& dropout = value.contains("dropout") ? value["dropout"] : json();
  if (!dropout.is_null() && !(dropout.is_number() && dropout.get<double>() == 0.0))
    fail(member_path(path, "dropout"), "is " + json_excerpt(dropout) +
                                           ": BPE dropout makes tokenization random, which this reader refuses");
  read_vocab_object(required(value, "vocab", path), member_path(path, "vocab"));
  const std::string unk = text(value, "unk_token", path, "");
  if (!unk.empty()) {
    unk_id_ = id_of(unk);
    if (unk_id_ < 0) fail(member_path(path, "unk_token"), quote(unk) + " is not in the vocabulary");
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_ids_[b] = id_of(name);
  }

  const std::string list = member_path(path, "merges");
  const json& merges = required_array(value, "merges", path);
  check_table_size(merges.size(), kMaxMerges, "tokenizer.json's " + list);
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    const json& m = merges[rank];
    const std::string where = element_path(list, rank);
    std::string left, right;
    if (m.is_string()) {  // "left right"
      const std::string& s = m.get_ref<const std::string&>();
      const std::size_t space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
        fail(where, "is " + quote(s) + ", not two symbols \"left right\"");
      left = s.substr(0, space);
      right = s.substr(space + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {  // ["left", "right"]
      left = m[0].get<std::string>();
      right = m[1].get<std::string>();
    } else {
      fail(where, "must be \"left right\" or [\"left\", \"right\"], not " + json_excerpt(m));
    }
    // The merged symbol: a continuation's prefix is not repeated inside it.
    const bool continues = !prefix_.empty() && right.compare(0, prefix_.size(), prefix_) == 0;
    const std::string result = left + (continues ? right.substr(prefix_.size()) : right);
    for (const std::string* piece : std::initializer_list<const std::string*>{&left, &right, &result})
      if (id_of(*piece) < 0) fail(where, "names " + quote(*piece) + ", which is not in the vocabulary");
    // A pair listed twice keeps its last rank, as the crate's map of merges (collected in order) does.
    merges_.add(id_of(left), id_of(right), {static_cast<int>(rank), id_of(result)}, /*keep_first=*/false);
  }
}

void BpeModel::tokenize(const std::u32string& word, std::vector<ModelToken>& out) const {
  if (word.empty()) return;
  const std::string whole = encode_utf8(word);
  if (ignore_merges_) {
    if (const int id = id_of(whole); id >= 0) {
      out.push_back({id, whole, 0, word.size()});
      return;
    }
  }
  // The word's symbols, each with the characters it covers.
  std::vector<int> symbols;
  std::vector<std::size_t> starts;  // the first character of each symbol
  bool previous_unknown = false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    std::string s = encode_utf8(word[i]);
    if (i > 0) s = prefix_ + s;
    if (i + 1 == word.size()) s += suffix_;
    const int id = id_of(s);
    if (id >= 0) {
      symbols.push_back(id);
      starts.push_back(i);
      previous_unknown = false;
      continue;
    }
    if (byte_fallback_) {
      bool all = true;
      for (char b : s) all = all && byte_ids_[static_cast<unsigned char>(b)] >= 0;
      if (all) {
        for (char b : s) {
          symbols.push_back(byte_ids_[static_cast<unsigned char>(b)]);
          starts.push_back(i);
        }
        previous_unknown = false;
        continue;
      }
    }
    if (unk_id_ < 0) continue;  // no unknown token: the character is dropped, as the crate does
    if (!(fuse_unk_ && previous_unknown)) {
      symbols.push_back(unk_id_);
      starts.push_back(i);
    }
    previous_unknown = true;
  }
  std::vector<int> sizes;
  const std::vector<int> merged = bpe_merge(symbols, merges_, MergeOrder::OneAtATime, &sizes);
  std::size_t first = 0;  // in `symbols`
  for (std::size_t k = 0; k < merged.size(); ++k) {
    const std::size_t last = first + static_cast<std::size_t>(sizes[k]);  // one past
    const std::size_t end = last < starts.size() ? starts[last] : word.size();
    // Byte tokens of one character all cover that character.
    const std::size_t begin = starts[first];
    out.push_back({merged[k], entries_[static_cast<std::size_t>(merged[k])], begin, std::max(end, begin + 1)});
    first = last;
  }
}

}  // namespace attnscope::tokenizer_json
