#include "text/tokenizer_json/unigram_model.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "core/quote.h"
#include "text/table_limits.h"
#include "text/utf8.h"

namespace attnscope::tokenizer_json {
namespace {

constexpr double kUnknownPenalty = 10.0;

}  // namespace

UnigramModel::UnigramModel(const json& value, const std::string& path)
    : byte_fallback_(flag(value, "byte_fallback", path, false)) {
  const std::string list = member_path(path, "vocab");
  const json& vocab = required_array(value, "vocab", path);
  check_table_size(vocab.size(), kMaxVocabulary, "tokenizer.json's " + list);
  double min_score = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < vocab.size(); ++i) {
    const json& e = vocab[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number())
      fail(element_path(list, i), "must be [\"piece\", score], not " + json_excerpt(e));
    const std::string piece = e[0].get<std::string>();
    if (id_of(piece) >= 0) fail(element_path(list, i), "repeats the piece " + quote(piece));
    add_entry(piece, static_cast<int>(i), list);
    scores_.push_back(e[1].get<double>());
    min_score = std::min(min_score, scores_.back());
    int node = 0;
    for (char32_t c : decode_utf8(piece)) {
      const auto it = trie_[static_cast<std::size_t>(node)].next.find(c);
      if (it != trie_[static_cast<std::size_t>(node)].next.end()) {
        node = it->second;
      } else {
        trie_[static_cast<std::size_t>(node)].next.emplace(c, static_cast<int>(trie_.size()));
        node = static_cast<int>(trie_.size());
        trie_.emplace_back();
      }
    }
    if (node != 0) trie_[static_cast<std::size_t>(node)].id = static_cast<int>(i);
  }
  unk_score_ = min_score - kUnknownPenalty;
  const json& unk = value.contains("unk_id") ? value["unk_id"] : json();
  if (!unk.is_null()) {
    if (!unk.is_number_integer() || unk.get<long long>() < 0 || unk.get<long long>() >= static_cast<long long>(vocab.size()))
      fail(member_path(path, "unk_id"), "must be the index of an entry of the vocabulary, not " + json_excerpt(unk));
    unk_id_ = unk.get<int>();
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_ids_[b] = id_of(name);
  }
}

void UnigramModel::tokenize(const std::u32string& word, std::vector<ModelToken>& out) const {
  if (word.empty()) return;
  const std::size_t n = word.size();
  struct Best {
    int id = -1;
    double score = 0;
    std::size_t start = std::numeric_limits<std::size_t>::max();  // none yet
  };
  std::vector<Best> best(n + 1);
  best[0].start = 0;
  for (std::size_t start = 0; start < n; ++start) {
    if (best[start].start == std::numeric_limits<std::size_t>::max()) continue;  // unreachable
    const double here = best[start].score;
    bool single = false;  // an entry of exactly one character starts here
    int node = 0;
    for (std::size_t end = start; end < n; ++end) {
      const auto it = trie_[static_cast<std::size_t>(node)].next.find(word[end]);
      if (it == trie_[static_cast<std::size_t>(node)].next.end()) break;
      node = it->second;
      const int id = trie_[static_cast<std::size_t>(node)].id;
      if (id < 0) continue;
      if (end == start) single = true;
      const double candidate = here + scores_[static_cast<std::size_t>(id)];
      Best& target = best[end + 1];
      if (target.start == std::numeric_limits<std::size_t>::max() || candidate > target.score) target = {id, candidate, start};
    }
    if (!single) {
      if (unk_id_ < 0) fail("model", "has no unk_id, and the text has a character no piece covers");
      const double candidate = here + unk_score_;
      Best& target = best[start + 1];
      if (target.start == std::numeric_limits<std::size_t>::max() || candidate > target.score)
        target = {unk_id_, candidate, start};
    }
  }
  std::vector<ModelToken> path;
  for (std::size_t end = n; end > 0; end = best[end].start)
    path.push_back({best[end].id, encode_utf8(word.substr(best[end].start, end - best[end].start)), best[end].start, end});
  std::reverse(path.begin(), path.end());
  for (std::size_t k = 0; k < path.size(); ++k) {
    ModelToken t = path[k];
    if (t.id == unk_id_) {  // a run of unknown characters is one token
      while (k + 1 < path.size() && path[k + 1].id == unk_id_) {
        ++k;
        t.value += path[k].value;
        t.end = path[k].end;
      }
    } else {
      t.value = entries_[static_cast<std::size_t>(t.id)];
      out.push_back(std::move(t));
      continue;
    }
    // Looked up again, as the crate does: the text of a run may itself be an entry.
    if (const int id = id_of(t.value); id >= 0) {
      t.id = id;
      out.push_back(std::move(t));
      continue;
    }
    if (byte_fallback_) {
      bool all = true;
      for (char b : t.value) all = all && byte_ids_[static_cast<unsigned char>(b)] >= 0;
      if (all) {
        for (char b : t.value) {
          const int id = byte_ids_[static_cast<unsigned char>(b)];
          out.push_back({id, entries_[static_cast<std::size_t>(id)], t.begin, t.end});
        }
        continue;
      }
    }
    out.push_back(std::move(t));
  }
}

}  // namespace attnscope::tokenizer_json
