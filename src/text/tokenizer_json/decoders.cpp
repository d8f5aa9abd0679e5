#include "text/tokenizer_json/decoders.h"

#include <algorithm>

#include "core/quote.h"
#include "text/byte_bpe_decode.h"
#include "text/tokenizer_json/text.h"
#include "text/utf8.h"

namespace attnscope::tokenizer_json {
namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

// The WordPiece decoder's clean-up: spaces before punctuation and English contractions removed.
std::string cleanup(std::string s) {
  static const char* const kRules[][2] = {{" .", "."},     {" ?", "?"},   {" !", "!"},   {" ,", ","},
                                          {" ' ", "'"},    {" n't", "n't"}, {" 'm", "'m"}, {" do not", " don't"},
                                          {" 's", "'s"},   {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& rule : kRules) s = replace_all(std::move(s), rule[0], rule[1]);
  return s;
}

// All tokens as one: each token's characters mapped back to bytes (a token with a character
// outside the byte alphabet kept as its own UTF-8), the bytes read as UTF-8 with U+FFFD for
// ill-formed parts.
class ByteLevel : public Decoder {
 public:
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    return {decode_byte_level(tokens)};
  }
};

// Each replacement character a space, except those of the first token unless prepend_scheme is
// "never" (the crate drops them there).
class Metaspace : public Decoder {
 public:
  Metaspace(const json& value, const std::string& path)
      : replacement_(encode_utf8(character(value, "replacement", path, 0x2581))),
        drop_first_(text(value, "prepend_scheme", path, flag(value, "add_prefix_space", path, true) ? "always" : "never") !=
                    "never") {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i)
      tokens[i] = replace_all(std::move(tokens[i]), replacement_, i == 0 && drop_first_ ? "" : " ");
    return tokens;
  }

 private:
  std::string replacement_;
  bool drop_first_;
};

// Continuations lose their prefix, other tokens but the first get a space in front.
class WordPiece : public Decoder {
 public:
  WordPiece(const json& value, const std::string& path)
      : prefix_(text(value, "prefix", path, "##")), cleanup_(flag(value, "cleanup", path, true)) {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      std::string& t = tokens[i];
      if (i != 0) {
        if (!prefix_.empty() && t.compare(0, prefix_.size(), prefix_) == 0) t.erase(0, prefix_.size());
        else t = " " + t;
      }
      if (cleanup_) t = cleanup(std::move(t));
    }
    return tokens;
  }

 private:
  std::string prefix_;
  bool cleanup_;
};

// The end-of-word suffix a space, except in the last token, where it goes.
class BpeDecoder : public Decoder {
 public:
  BpeDecoder(const json& value, const std::string& path) : suffix_(text(value, "suffix", path, "</w>")) {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i)
      tokens[i] = replace_all(std::move(tokens[i]), suffix_, i + 1 == tokens.size() ? "" : " ");
    return tokens;
  }

 private:
  std::string suffix_;
};

// Runs of <0xXX> tokens become the text of their bytes; bytes that are not UTF-8 make one U+FFFD
// per token of the run, as the crate writes them.
class ByteFallback : public Decoder {
 public:
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    std::vector<std::string> out;
    std::string bytes;
    std::size_t count = 0;
    const auto flush = [&] {
      if (count == 0) return;
      if (utf8_with_replacements(bytes) == bytes) {
        out.push_back(bytes);
      } else {
        for (std::size_t k = 0; k < count; ++k) out.push_back("\xEF\xBF\xBD");
      }
      bytes.clear();
      count = 0;
    };
    for (std::string& t : tokens) {
      int value = -1;
      if (t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>') {
        const auto hex = [](char h) {
          return h >= '0' && h <= '9' ? h - '0' : h >= 'A' && h <= 'F' ? h - 'A' + 10 : h >= 'a' && h <= 'f' ? h - 'a' + 10 : -1;
        };
        const int hi = hex(t[3]), lo = hex(t[4]);
        if (hi >= 0 && lo >= 0) value = hi * 16 + lo;
      }
      if (value >= 0) {
        bytes += static_cast<char>(value);
        ++count;
      } else {
        flush();
        out.push_back(std::move(t));
      }
    }
    flush();
    return out;
  }
};

class Fuse : public Decoder {
 public:
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    std::string all;
    for (const std::string& t : tokens) all += t;
    return {all};
  }
};

// Up to `start` leading and `stop` trailing copies of one character removed from each token.
class Strip : public Decoder {
 public:
  Strip(const json& value, const std::string& path)
      : content_(character(value, "content", path, U' ')),
        start_(static_cast<std::size_t>(integer(value, "start", path, 0, 0, 1 << 20))),
        stop_(static_cast<std::size_t>(integer(value, "stop", path, 0, 0, 1 << 20))) {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (std::string& t : tokens) {
      const std::u32string c = decode_utf8(t);
      std::size_t begin = 0, end = c.size();
      while (begin < std::min(start_, c.size()) && c[begin] == content_) ++begin;
      while (c.size() - end < stop_ && end > begin && c[end - 1] == content_) --end;
      t = encode_utf8(c.substr(begin, end - begin));
    }
    return tokens;
  }

 private:
  char32_t content_;
  std::size_t start_, stop_;
};

class Replace : public Decoder {
 public:
  Replace(const json& value, const std::string& path)
      : pattern_(required(value, "pattern", path), member_path(path, "pattern")),
        content_(required_text(value, "content", path)) {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (std::string& t : tokens) {
      const std::u32string c = decode_utf8(t);
      std::string out;
      std::size_t at = 0;
      for (const Regex::Match& m : pattern_.find(c)) {
        out += encode_utf8(c.substr(at, m.begin - at)) + content_;
        at = m.end;
      }
      t = out + encode_utf8(c.substr(at));
    }
    return tokens;
  }

 private:
  Pattern pattern_;
  std::string content_;
};

// Connectionist temporal classification: repeats collapsed, the pad token dropped, the word
// delimiter a space (with clean-up).
class Ctc : public Decoder {
 public:
  Ctc(const json& value, const std::string& path)
      : pad_(text(value, "pad_token", path, "<pad>")), delimiter_(text(value, "word_delimiter_token", path, "|")),
        cleanup_(flag(value, "cleanup", path, true)) {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0 && tokens[i] == tokens[i - 1]) continue;
      std::string t = replace_all(tokens[i], pad_, "");
      if (cleanup_) t = replace_all(cleanup(std::move(t)), delimiter_, " ");
      if (!t.empty()) out.push_back(std::move(t));
    }
    return out;
  }

 private:
  std::string pad_, delimiter_;
  bool cleanup_;
};

class Sequence : public Decoder {
 public:
  Sequence(const json& value, const std::string& path)
      : steps_(components<Decoder>(value, "decoders", path, make_decoder)) {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (const auto& d : steps_) tokens = d->decode_chain(std::move(tokens));
    return tokens;
  }

 private:
  std::vector<std::unique_ptr<Decoder>> steps_;
};

}  // namespace

std::unique_ptr<Decoder> make_decoder(const json& value, const std::string& path) {
  if (value.is_null()) return nullptr;
  const std::string& type = component_type(value, path);
  if (type == "ByteLevel") return std::make_unique<ByteLevel>();
  if (type == "Metaspace") return std::make_unique<Metaspace>(value, path);
  if (type == "WordPiece") return std::make_unique<WordPiece>(value, path);
  if (type == "BPEDecoder") return std::make_unique<BpeDecoder>(value, path);
  if (type == "ByteFallback") return std::make_unique<ByteFallback>();
  if (type == "Fuse") return std::make_unique<Fuse>();
  if (type == "Strip") return std::make_unique<Strip>(value, path);
  if (type == "Replace") return std::make_unique<Replace>(value, path);
  if (type == "CTC") return std::make_unique<Ctc>(value, path);
  if (type == "Sequence") return std::make_unique<Sequence>(value, path);
  unsupported(type, path, "ByteLevel, Metaspace, WordPiece, BPEDecoder, ByteFallback, Fuse, Strip, Replace, CTC, Sequence");
}

}  // namespace attnscope::tokenizer_json
