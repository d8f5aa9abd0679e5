#include "text/tokenizer_json/post_processors.h"

#include "core/quote.h"
#include "text/byte_bpe_alphabet.h"
#include "text/table_limits.h"
#include "text/tokenizer_json/text.h"
#include "text/utf8.h"

namespace attnscope::tokenizer_json {
namespace {

struct Special {
  std::string token;
  int id;
};

// BertProcessing's and RobertaProcessing's ["token", id].
Special token_and_id(const json& object, const char* key, const std::string& path) {
  const json& v = required(object, key, path);
  if (!v.is_array() || v.size() != 2 || !v[0].is_string() || !v[1].is_number_integer() || v[1].get<long long>() < 0 ||
      v[1].get<long long>() >= static_cast<long long>(kMaxVocabulary))
    fail(member_path(path, key), "must be [\"token\", id], not " + json_excerpt(v));
  return {v[0].get<std::string>(), v[1].get<int>()};
}

Encoding around(const Special& first, Encoding inner, const Special& last) {
  Encoding out;
  out.push(first.id, first.token, 0, 0, true);
  for (std::size_t i = 0; i < inner.size(); ++i)
    out.push(inner.ids[i], inner.pieces[i], inner.offsets[i].first, inner.offsets[i].second, inner.special[i]);
  out.push(last.id, last.token, 0, 0, true);
  return out;
}

// The ByteLevel processor's trimming: a token's leading and trailing spaces ('Ġ' or white space)
// left out of its offsets, except the one space add_prefix_space put before the first word.
void trim_offsets(Encoding& e, bool add_prefix_space) {
  const char32_t space = bytes_to_unicode()[' '];
  const auto is_space = [&](char32_t c) { return c == space || is_whitespace(c); };
  for (std::size_t i = 0; i < e.size(); ++i) {
    const std::u32string t = decode_utf8(e.pieces[i]);
    std::size_t leading = 0, trailing = 0;
    while (leading < t.size() && is_space(t[leading])) ++leading;
    while (trailing < t.size() && is_space(t[t.size() - 1 - trailing])) ++trailing;
    auto& [begin, end] = e.offsets[i];
    if (leading > 0) {
      if ((i == 0 || begin == 0) && add_prefix_space && leading == 1) leading = 0;
      begin = std::min(begin + leading, end);
    }
    if (trailing > 0 && end >= trailing) end = std::max(end - trailing, begin);
  }
}

class ByteLevel : public PostProcessor {
 public:
  ByteLevel(const json& value, const std::string& path)
      : trim_(flag(value, "trim_offsets", path, true)), prefix_space_(flag(value, "add_prefix_space", path, true)) {}
  void process(Encoding& e, bool) const override {
    if (trim_) trim_offsets(e, prefix_space_);
  }

 private:
  bool trim_, prefix_space_;
};

class BertProcessing : public PostProcessor {
 public:
  BertProcessing(const json& value, const std::string& path)
      : sep_(token_and_id(value, "sep", path)), cls_(token_and_id(value, "cls", path)) {}
  void process(Encoding& e, bool add_special_tokens) const override {
    if (add_special_tokens) e = around(cls_, std::move(e), sep_);
  }

 private:
  Special sep_, cls_;
};

class RobertaProcessing : public PostProcessor {
 public:
  RobertaProcessing(const json& value, const std::string& path)
      : sep_(token_and_id(value, "sep", path)), cls_(token_and_id(value, "cls", path)),
        trim_(flag(value, "trim_offsets", path, true)), prefix_space_(flag(value, "add_prefix_space", path, true)) {}
  void process(Encoding& e, bool add_special_tokens) const override {
    if (trim_) trim_offsets(e, prefix_space_);
    if (add_special_tokens) e = around(cls_, std::move(e), sep_);
  }

 private:
  Special sep_, cls_;
  bool trim_, prefix_space_;
};

// The "single" template: its SpecialToken items (each the ids and tokens of special_tokens[id])
// around the sequence $A.
class TemplateProcessing : public PostProcessor {
 public:
  TemplateProcessing(const json& value, const std::string& path) {
    const std::string specials_path = member_path(path, "special_tokens");
    const json& specials = required(value, "special_tokens", path);
    if (!specials.is_object()) fail(specials_path, "must be an object");
    const std::string single_path = member_path(path, "single");
    const json& single = required_array(value, "single", path);
    for (std::size_t i = 0; i < single.size(); ++i) {
      const json& item = single[i];
      const std::string where = element_path(single_path, i);
      if (item.is_object() && item.contains("Sequence")) {
        const std::string id = required_text(item["Sequence"], "id", member_path(where, "Sequence"));
        if (id != "A") fail(where, "is the sequence " + quote(id) + " in a single template (only A is)");
        items_.push_back({true, {}});
      } else if (item.is_object() && item.contains("SpecialToken")) {
        const std::string id = required_text(item["SpecialToken"], "id", member_path(where, "SpecialToken"));
        const std::string at = member_path(specials_path, id.c_str());
        if (!specials.contains(id)) fail(where, "names the special token " + quote(id) + ", which special_tokens lacks");
        const json& s = specials[id];
        const json& ids = required_array(s, "ids", at);
        const json& tokens = required_array(s, "tokens", at);
        if (ids.size() != tokens.size()) fail(at, "must have as many ids as tokens");
        Item special{false, {}};
        for (std::size_t k = 0; k < ids.size(); ++k) {
          if (!ids[k].is_number_integer() || ids[k].get<long long>() < 0 ||
              ids[k].get<long long>() >= static_cast<long long>(kMaxVocabulary) || !tokens[k].is_string())
            fail(at, "must hold integer ids in [0, " + std::to_string(kMaxVocabulary) + ") and string tokens");
          special.specials.push_back({tokens[k].get<std::string>(), ids[k].get<int>()});
        }
        items_.push_back(std::move(special));
      } else {
        fail(where, "must be {\"Sequence\": ...} or {\"SpecialToken\": ...}, not " + json_excerpt(item));
      }
    }
  }
  void process(Encoding& e, bool add_special_tokens) const override {
    Encoding out;
    for (const Item& item : items_) {
      if (item.sequence) {
        for (std::size_t i = 0; i < e.size(); ++i)
          out.push(e.ids[i], e.pieces[i], e.offsets[i].first, e.offsets[i].second, e.special[i]);
      } else if (add_special_tokens) {
        for (const Special& s : item.specials) out.push(s.id, s.token, 0, 0, true);
      }
    }
    e = std::move(out);
  }

 private:
  struct Item {
    bool sequence;
    std::vector<Special> specials;
  };
  std::vector<Item> items_;
};

class Sequence : public PostProcessor {
 public:
  Sequence(const json& value, const std::string& path)
      : steps_(components<PostProcessor>(value, "processors", path, make_post_processor)) {}
  void process(Encoding& e, bool add_special_tokens) const override {
    for (const auto& p : steps_) p->process(e, add_special_tokens);
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> steps_;
};

}  // namespace

std::unique_ptr<PostProcessor> make_post_processor(const json& value, const std::string& path) {
  if (value.is_null()) return nullptr;
  const std::string& type = component_type(value, path);
  if (type == "TemplateProcessing") return std::make_unique<TemplateProcessing>(value, path);
  if (type == "BertProcessing") return std::make_unique<BertProcessing>(value, path);
  if (type == "RobertaProcessing") return std::make_unique<RobertaProcessing>(value, path);
  if (type == "ByteLevel") return std::make_unique<ByteLevel>(value, path);
  if (type == "Sequence") return std::make_unique<Sequence>(value, path);
  unsupported(type, path, "TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence");
}

}  // namespace attnscope::tokenizer_json
