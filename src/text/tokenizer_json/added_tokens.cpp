#include "text/tokenizer_json/added_tokens.h"

#include <algorithm>

#include "core/quote.h"
#include "text/table_limits.h"
#include "text/unicode.h"
#include "text/utf8.h"

namespace attnscope::tokenizer_json {
namespace {

// The regex crate's \w: letters, marks, decimal digits, letter numbers, connector punctuation.
bool is_word(char32_t c) {
  const unicode::Category k = unicode::category(c);
  const char group = unicode::category_name(k)[0];
  return group == 'L' || group == 'M' || k == unicode::Category::Nd || k == unicode::Category::Nl ||
         k == unicode::Category::Pc;
}

}  // namespace

void AddedTokens::Matcher::add(const std::u32string& text, int token) {
  int node = 0;
  for (char32_t c : text) {
    const auto it = nodes[static_cast<std::size_t>(node)].next.find(c);
    if (it != nodes[static_cast<std::size_t>(node)].next.end()) {
      node = it->second;
      continue;
    }
    nodes[static_cast<std::size_t>(node)].next.emplace(c, static_cast<int>(nodes.size()));
    node = static_cast<int>(nodes.size());
    nodes.emplace_back();
  }
  if (node != 0 && nodes[static_cast<std::size_t>(node)].token < 0) nodes[static_cast<std::size_t>(node)].token = token;
}

AddedTokens::AddedTokens(const json& value, const std::string& path, const Normalizer* normalizer) {
  if (value.is_null()) return;
  if (!value.is_array()) fail(path, "must be an array");
  check_table_size(value.size(), kMaxVocabulary, "tokenizer.json's " + path);
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string at = element_path(path, i);
    const json& t = value[i];
    if (!t.is_object()) fail(at, "must be an object");
    AddedToken a;
    a.content = required_text(t, "content", at);
    a.id = static_cast<int>(integer(t, "id", at, -1, 0, static_cast<long long>(kMaxVocabulary) - 1));
    if (a.id < 0) fail(at, "needs a field 'id'");
    a.special = flag(t, "special", at, false);
    a.single_word = flag(t, "single_word", at, false);
    a.lstrip = flag(t, "lstrip", at, false);
    a.rstrip = flag(t, "rstrip", at, false);
    a.normalized = flag(t, "normalized", at, !a.special);
    if (a.content.empty()) continue;  // matches nothing, as the crate ignores it
    if (by_id_.count(a.id)) fail(at, "repeats the id " + std::to_string(a.id));
    by_id_[a.id] = tokens_.size();
    tokens_.push_back(std::move(a));
  }
  // Special tokens first, as the crate builds its matchers (only equal texts make the order matter).
  std::vector<std::size_t> order(tokens_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(), [&](std::size_t i) { return tokens_[i].special; });
  for (std::size_t i : order) {
    const AddedToken& a = tokens_[i];
    if (!a.normalized) {
      raw_.add(decode_utf8(a.content), static_cast<int>(i));
    } else {
      Text t = read_input(a.content);
      if (normalizer) normalizer->normalize(t);
      normalized_.add(codes(t), static_cast<int>(i));
    }
  }
}

const AddedToken* AddedTokens::find(int id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &tokens_[it->second];
}

void AddedTokens::split_with(const Text& text, const Matcher& m, std::vector<Section>& out) const {
  if (m.empty()) {
    if (!text.empty()) out.push_back({text, nullptr});
    return;
  }
  std::size_t done = 0;  // text before this is in `out`
  for (std::size_t start = 0; start < text.size();) {
    // The longest token starting here.
    int node = 0, token = -1;
    std::size_t stop = start;
    for (std::size_t i = start; i < text.size(); ++i) {
      const auto it = m.nodes[static_cast<std::size_t>(node)].next.find(text[i].code);
      if (it == m.nodes[static_cast<std::size_t>(node)].next.end()) break;
      node = it->second;
      if (m.nodes[static_cast<std::size_t>(node)].token >= 0) {
        token = m.nodes[static_cast<std::size_t>(node)].token;
        stop = i + 1;
      }
    }
    if (token < 0) {
      ++start;
      continue;
    }
    const AddedToken& a = tokens_[static_cast<std::size_t>(token)];
    std::size_t begin = start, end = stop;
    if (a.single_word && ((start > 0 && is_word(text[start - 1].code)) || (stop < text.size() && is_word(text[stop].code)))) {
      start = stop;  // not a word of its own: the match is passed over, as the crate does
      continue;
    }
    if (a.lstrip)
      while (begin > done && is_whitespace(text[begin - 1].code)) --begin;
    if (a.rstrip)
      while (end < text.size() && is_whitespace(text[end].code)) ++end;
    if (begin > done) out.push_back({Text(text.begin() + static_cast<long>(done), text.begin() + static_cast<long>(begin)), nullptr});
    out.push_back({Text(text.begin() + static_cast<long>(begin), text.begin() + static_cast<long>(end)), &a});
    done = start = end;
  }
  if (done < text.size()) out.push_back({Text(text.begin() + static_cast<long>(done), text.end()), nullptr});
}

std::vector<Section> AddedTokens::split(const Text& text, const Normalizer* normalizer) const {
  std::vector<Section> raw;
  split_with(text, raw_, raw);
  std::vector<Section> out;
  for (Section& s : raw) {
    if (s.token) {
      out.push_back(std::move(s));
      continue;
    }
    if (normalizer) normalizer->normalize(s.text);
    split_with(s.text, normalized_, out);
  }
  return out;
}

}  // namespace attnscope::tokenizer_json
