#include "text/tokenizer_json/text.h"

#include "core/quote.h"
#include "text/byte_bpe_decode.h"
#include "text/unicode.h"
#include "text/utf8.h"

namespace attnscope::tokenizer_json {

Text read_input(const std::string& bytes) {
  Text text;
  text.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    std::size_t n = utf8_sequence_length(bytes, i);
    if (n) {
      const char32_t c = decode_utf8(bytes.substr(i, n))[0];
      text.push_back({c, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i + n)});
    } else {
      n = maximal_subpart(bytes, i);
      text.push_back({0xFFFD, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i + n)});
    }
    i += n;
  }
  return text;
}

std::u32string codes(const Text& text) {
  std::u32string out;
  out.reserve(text.size());
  for (const Char& c : text) out.push_back(c.code);
  return out;
}

std::string utf8(const Text& text) { return encode_utf8(codes(text)); }

Text inserted(const std::u32string& c, const Char& at) {
  Text out;
  for (char32_t x : c) out.push_back({x, at.begin, at.end});
  return out;
}

bool is_whitespace(char32_t c) { return unicode::is_white_space(c); }

Pattern::Pattern(const json& value, const std::string& path) {
  if (!value.is_object() || value.size() != 1 || !(value.contains("String") || value.contains("Regex")))
    fail(path, "must be {\"String\": ...} or {\"Regex\": ...}");
  if (value.contains("String")) {
    literal_ = decode_utf8(required_text(value, "String", path));
  } else {
    regex_ = std::make_unique<Regex>(required_text(value, "Regex", path), "tokenizer.json: " + path);
  }
}

std::vector<Regex::Match> Pattern::find(const std::u32string& text) const {
  if (regex_) {
    std::vector<Regex::Match> out;
    for (const Regex::Match& m : regex_->find_all(text))
      if (m.end > m.begin) out.push_back(m);  // an empty match cuts nothing
    return out;
  }
  std::vector<Regex::Match> out;
  if (literal_.empty()) return out;
  for (std::size_t at = text.find(literal_); at != std::u32string::npos; at = text.find(literal_, at + literal_.size()))
    out.push_back({at, at + literal_.size()});
  return out;
}

Behavior read_behavior(const json& object, const char* key, const std::string& path, Behavior fallback) {
  const std::string b = text(object, key, path, "");
  if (b.empty()) return fallback;
  if (b == "Removed") return Behavior::Removed;
  if (b == "Isolated") return Behavior::Isolated;
  if (b == "MergedWithPrevious") return Behavior::MergedWithPrevious;
  if (b == "MergedWithNext") return Behavior::MergedWithNext;
  if (b == "Contiguous") return Behavior::Contiguous;
  fail(member_path(path, key), "is " + quote(b) +
                                   ", not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous");
}

void split_at(const Text& text, const std::vector<Regex::Match>& matches, Behavior behavior, bool invert,
              std::vector<Text>& out) {
  // Every part of the text, in order, with whether it is a match.
  struct Part {
    std::size_t begin, end;
    bool match;
  };
  std::vector<Part> parts;
  std::size_t at = 0;
  for (const Regex::Match& m : matches) {
    if (m.begin > at) parts.push_back({at, m.begin, invert});
    parts.push_back({m.begin, m.end, !invert});
    at = m.end;
  }
  if (at < text.size()) parts.push_back({at, text.size(), invert});

  // Hugging Face's NormalizedString::split: the parts joined as the behavior says.
  std::vector<Part> pieces;
  bool previous_match = false;
  switch (behavior) {
    case Behavior::Removed:
      for (const Part& p : parts)
        if (!p.match) pieces.push_back(p);
      break;
    case Behavior::Isolated: pieces = parts; break;
    case Behavior::MergedWithPrevious:
      for (const Part& p : parts) {
        if (p.match && !previous_match && !pieces.empty()) pieces.back().end = p.end;
        else pieces.push_back(p);
        previous_match = p.match;
      }
      break;
    case Behavior::MergedWithNext:
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (it->match && !previous_match && !pieces.empty()) pieces.back().begin = it->begin;
        else pieces.push_back(*it);
        previous_match = it->match;
      }
      std::reverse(pieces.begin(), pieces.end());
      break;
    case Behavior::Contiguous:
      for (const Part& p : parts) {
        if (p.match == previous_match && !pieces.empty()) pieces.back().end = p.end;
        else pieces.push_back(p);
        previous_match = p.match;
      }
      break;
  }
  for (const Part& p : pieces)
    if (p.end > p.begin) out.emplace_back(text.begin() + static_cast<long>(p.begin), text.begin() + static_cast<long>(p.end));
}

}  // namespace attnscope::tokenizer_json
