#include "text/tokenizer_json/normalizers.h"

#include "text/unicode.h"
#include "text/utf8.h"
#include "text/wordpiece_tokenizer.h"

namespace attnscope::tokenizer_json {
namespace {

// Each character replaced by what `map` makes of it (any number of characters, each standing by it).
template <class Map>
void per_char(Text& text, Map map) {
  Text out;
  out.reserve(text.size());
  for (const Char& c : text)
    for (char32_t x : map(c.code)) out.push_back({x, c.begin, c.end});
  text = std::move(out);
}

class Sequence : public Normalizer {
 public:
  Sequence(const json& value, const std::string& path)
      : steps_(components<Normalizer>(value, "normalizers", path, make_normalizer)) {}
  void normalize(Text& text) const override {
    for (const auto& n : steps_) n->normalize(text);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

class UnicodeForm : public Normalizer {
 public:
  explicit UnicodeForm(unicode::Form form) : form_(form) {}
  void normalize(Text& text) const override {
    std::vector<unicode::Origin> origins;
    const std::u32string out = unicode::normalize(codes(text), form_, &origins);
    Text result;
    result.reserve(out.size());
    for (std::size_t i = 0; i < out.size(); ++i)
      result.push_back({out[i], text[origins[i].first].begin, text[origins[i].last].end});
    text = std::move(result);
  }

 private:
  unicode::Form form_;
};

// Rust's char::to_lowercase on every character (no final-sigma rule: "Σ" is "σ" everywhere).
class Lowercase : public Normalizer {
 public:
  void normalize(Text& text) const override {
    per_char(text, [](char32_t c) { return unicode::lower(c); });
  }
};

class Strip : public Normalizer {
 public:
  Strip(const json& value, const std::string& path)
      : left_(flag(value, "strip_left", path, true)), right_(flag(value, "strip_right", path, true)) {}
  void normalize(Text& text) const override {
    std::size_t begin = 0, end = text.size();
    if (left_)
      while (begin < end && is_whitespace(text[begin].code)) ++begin;
    if (right_)
      while (end > begin && is_whitespace(text[end - 1].code)) --end;
    text = Text(text.begin() + static_cast<long>(begin), text.begin() + static_cast<long>(end));
  }

 private:
  bool left_, right_;
};

// Every mark (M*) removed; no decomposition first (that is an NFD's job).
class StripAccents : public Normalizer {
 public:
  void normalize(Text& text) const override {
    per_char(text, [](char32_t c) {
      return unicode::category_name(unicode::category(c))[0] == 'M' ? std::u32string() : std::u32string(1, c);
    });
  }
};

// Every match of the pattern replaced by the content, whose characters stand by the match's first.
class Replace : public Normalizer {
 public:
  Replace(const json& value, const std::string& path)
      : pattern_(required(value, "pattern", path), member_path(path, "pattern")),
        content_(decode_utf8(required_text(value, "content", path))) {}
  void normalize(Text& text) const override {
    Text out;
    std::size_t at = 0;
    for (const Regex::Match& m : pattern_.find(codes(text))) {
      out.insert(out.end(), text.begin() + static_cast<long>(at), text.begin() + static_cast<long>(m.begin));
      const Char span{0, text[m.begin].begin, text[m.end - 1].end};
      const Text content = inserted(content_, span);
      out.insert(out.end(), content.begin(), content.end());
      at = m.end;
    }
    out.insert(out.end(), text.begin() + static_cast<long>(at), text.end());
    text = std::move(out);
  }

 private:
  Pattern pattern_;
  std::u32string content_;
};

// The prefix, standing by the first character, on a text that is not empty.
class Prepend : public Normalizer {
 public:
  Prepend(const json& value, const std::string& path) : prefix_(decode_utf8(required_text(value, "prepend", path))) {}
  void normalize(Text& text) const override {
    if (text.empty()) return;
    Text out = inserted(prefix_, text.front());
    out.insert(out.end(), text.begin(), text.end());
    text = std::move(out);
  }

 private:
  std::u32string prefix_;
};

// Hugging Face's BertNormalizer: clean-up (NUL, U+FFFD and other characters of category C* but
// \t \n \r dropped, white space as ' '), CJK ideographs spaced apart, accents stripped (NFD, then
// no Mn; by default exactly when lower-casing), lower-casing; in that order.
class BertNormalizer : public Normalizer {
 public:
  BertNormalizer(const json& value, const std::string& path)
      : clean_text_(flag(value, "clean_text", path, true)),
        chinese_(flag(value, "handle_chinese_chars", path, true)),
        lowercase_(flag(value, "lowercase", path, true)),
        strip_accents_(flag(value, "strip_accents", path, lowercase_)) {}
  void normalize(Text& text) const override {
    if (clean_text_)
      per_char(text, [](char32_t c) {
        const bool control = c != U'\t' && c != U'\n' && c != U'\r' &&
                             unicode::category_name(unicode::category(c))[0] == 'C';
        if (c == 0 || c == 0xFFFD || control) return std::u32string();
        return std::u32string(1, is_whitespace(c) ? U' ' : c);
      });
    if (chinese_)
      per_char(text, [](char32_t c) { return bert_is_chinese_char(c) ? std::u32string{U' ', c, U' '} : std::u32string(1, c); });
    if (strip_accents_) {
      UnicodeForm(unicode::Form::NFD).normalize(text);
      per_char(text, [](char32_t c) { return unicode::is_nonspacing_mark(c) ? std::u32string() : std::u32string(1, c); });
    }
    if (lowercase_) Lowercase().normalize(text);
  }

 private:
  bool clean_text_, chinese_, lowercase_, strip_accents_;
};

}  // namespace

std::unique_ptr<Normalizer> make_normalizer(const json& value, const std::string& path) {
  if (value.is_null()) return nullptr;
  const std::string& type = component_type(value, path);
  if (type == "Sequence") return std::make_unique<Sequence>(value, path);
  if (type == "NFC") return std::make_unique<UnicodeForm>(unicode::Form::NFC);
  if (type == "NFD") return std::make_unique<UnicodeForm>(unicode::Form::NFD);
  if (type == "NFKC") return std::make_unique<UnicodeForm>(unicode::Form::NFKC);
  if (type == "NFKD") return std::make_unique<UnicodeForm>(unicode::Form::NFKD);
  if (type == "Lowercase") return std::make_unique<Lowercase>();
  if (type == "Strip") return std::make_unique<Strip>(value, path);
  if (type == "StripAccents") return std::make_unique<StripAccents>();
  if (type == "Replace") return std::make_unique<Replace>(value, path);
  if (type == "Prepend") return std::make_unique<Prepend>(value, path);
  if (type == "BertNormalizer") return std::make_unique<BertNormalizer>(value, path);
  unsupported(type, path, "Sequence, NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents, Replace, Prepend, BertNormalizer");
}

}  // namespace attnscope::tokenizer_json
