#include "text/tokenizer_json/pre_tokenizers.h"

#include "core/quote.h"
#include "text/byte_bpe_alphabet.h"
#include "text/unicode.h"
#include "text/utf8.h"
#include "text/wordpiece_tokenizer.h"

namespace attnscope::tokenizer_json {

const char* const kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

namespace {

// Each piece cut by `cut`, which appends the new pieces of one piece to `out`.
template <class Cut>
void cut_each(std::vector<Text>& pieces, Cut cut) {
  std::vector<Text> out;
  for (const Text& piece : pieces) cut(piece, out);
  pieces = std::move(out);
}

class Sequence : public PreTokenizer {
 public:
  Sequence(const json& value, const std::string& path)
      : steps_(components<PreTokenizer>(value, "pretokenizers", path, make_pre_tokenizer)) {}
  void pre_tokenize(std::vector<Text>& pieces) const override {
    for (const auto& p : steps_) p->pre_tokenize(pieces);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

// A space standing by the first character, in front of a piece that does not start with one.
void add_prefix_space(Text& piece) {
  if (piece.empty() || piece.front().code == U' ') return;
  piece.insert(piece.begin(), Char{U' ', piece.front().begin, piece.front().end});
}

class ByteLevel : public PreTokenizer {
 public:
  ByteLevel(const json& value, const std::string& path)
      : prefix_space_(flag(value, "add_prefix_space", path, true)), use_regex_(flag(value, "use_regex", path, true)),
        gpt2_(kGpt2Pattern, "GPT-2's pattern") {}
  void pre_tokenize(std::vector<Text>& pieces) const override {
    cut_each(pieces, [&](Text piece, std::vector<Text>& out) {
      if (prefix_space_) add_prefix_space(piece);
      if (use_regex_) split_at(piece, gpt2_.find_all(codes(piece)), Behavior::Isolated, false, out);
      else out.push_back(std::move(piece));
    });
    for (Text& piece : pieces) {
      Text bytes;
      for (const Char& c : piece)
        for (char b : encode_utf8(c.code)) bytes.push_back({bytes_to_unicode()[static_cast<unsigned char>(b)], c.begin, c.end});
      piece = std::move(bytes);
    }
  }

 private:
  bool prefix_space_, use_regex_;
  Regex gpt2_;
};

class Split : public PreTokenizer {
 public:
  Split(const json& value, const std::string& path)
      : pattern_(required(value, "pattern", path), member_path(path, "pattern")),
        behavior_(read_behavior(value, "behavior", path, Behavior::Isolated)),
        invert_(flag(value, "invert", path, false)) {
    required(value, "behavior", path);
  }
  void pre_tokenize(std::vector<Text>& pieces) const override {
    cut_each(pieces, [&](const Text& piece, std::vector<Text>& out) {
      split_at(piece, pattern_.find(codes(piece)), behavior_, invert_, out);
    });
  }

 private:
  Pattern pattern_;
  Behavior behavior_;
  bool invert_;
};

// Spaces become the replacement character; a piece that does not start with one gets one in front
// (prepend_scheme "always", or "first" for the piece at the start of the input, "never": none);
// with `split`, each replacement character then starts a new piece.
class Metaspace : public PreTokenizer {
 public:
  Metaspace(const json& value, const std::string& path)
      : replacement_(character(value, "replacement", path, 0x2581)), split_(flag(value, "split", path, true)) {
    // Files older than prepend_scheme say add_prefix_space (true: "always", false: "never").
    const std::string scheme = text(value, "prepend_scheme", path, flag(value, "add_prefix_space", path, true) ? "always" : "never");
    if (scheme == "always") scheme_ = Scheme::Always;
    else if (scheme == "first") scheme_ = Scheme::First;
    else if (scheme == "never") scheme_ = Scheme::Never;
    else fail(member_path(path, "prepend_scheme"), "is " + quote(scheme) + ", not one of always, first, never");
  }
  void pre_tokenize(std::vector<Text>& pieces) const override {
    cut_each(pieces, [&](Text piece, std::vector<Text>& out) {
      for (Char& c : piece)
        if (c.code == U' ') c.code = replacement_;
      if (!piece.empty() && piece.front().code != replacement_ &&
          (scheme_ == Scheme::Always || (scheme_ == Scheme::First && piece.front().begin == 0)))
        piece.insert(piece.begin(), Char{replacement_, piece.front().begin, piece.front().end});
      if (!split_) {
        if (!piece.empty()) out.push_back(std::move(piece));
        return;
      }
      const char32_t r = replacement_;
      split_at(piece, char_matches(piece, [r](char32_t c) { return c == r; }), Behavior::MergedWithNext, false, out);
    });
  }

 private:
  enum class Scheme { Always, First, Never };
  char32_t replacement_;
  bool split_;
  Scheme scheme_ = Scheme::Always;
};

// Runs of word characters, and runs of what is neither a word character nor white space: the
// pattern \w+|[^\w\s]+, everything else removed.
class Whitespace : public PreTokenizer {
 public:
  Whitespace() : words_(R"(\w+|[^\w\s]+)", "the Whitespace pre-tokenizer") {}
  void pre_tokenize(std::vector<Text>& pieces) const override {
    cut_each(pieces, [&](const Text& piece, std::vector<Text>& out) {
      split_at(piece, words_.find_all(codes(piece)), Behavior::Removed, true, out);
    });
  }

 private:
  Regex words_;
};

// Cut at white space, which is removed.
class WhitespaceSplit : public PreTokenizer {
 public:
  void pre_tokenize(std::vector<Text>& pieces) const override {
    cut_each(pieces, [](const Text& piece, std::vector<Text>& out) {
      split_at(piece, char_matches(piece, is_whitespace), Behavior::Removed, false, out);
    });
  }
};

// Cut at numbers (Rust's char::is_numeric: N*), each its own piece or runs of them together.
class Digits : public PreTokenizer {
 public:
  Digits(const json& value, const std::string& path) : individual_(flag(value, "individual_digits", path, false)) {}
  void pre_tokenize(std::vector<Text>& pieces) const override {
    cut_each(pieces, [&](const Text& piece, std::vector<Text>& out) {
      split_at(piece, char_matches(piece, unicode::is_number), individual_ ? Behavior::Isolated : Behavior::Contiguous,
               false, out);
    });
  }

 private:
  bool individual_;
};

// Cut at punctuation (BERT's: P* and ASCII symbols).
class Punctuation : public PreTokenizer {
 public:
  Punctuation(const json& value, const std::string& path)
      : behavior_(read_behavior(value, "behavior", path, Behavior::Isolated)) {}
  void pre_tokenize(std::vector<Text>& pieces) const override {
    cut_each(pieces, [&](const Text& piece, std::vector<Text>& out) {
      split_at(piece, char_matches(piece, bert_is_punctuation), behavior_, false, out);
    });
  }

 private:
  Behavior behavior_;
};

// BERT's: cut at white space (removed), then at punctuation (each its own piece).
class BertPreTokenizer : public PreTokenizer {
 public:
  void pre_tokenize(std::vector<Text>& pieces) const override {
    WhitespaceSplit().pre_tokenize(pieces);
    cut_each(pieces, [](const Text& piece, std::vector<Text>& out) {
      split_at(piece, char_matches(piece, bert_is_punctuation), Behavior::Isolated, false, out);
    });
  }
};

}  // namespace

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const json& value, const std::string& path) {
  if (value.is_null()) return nullptr;
  const std::string& type = component_type(value, path);
  if (type == "Sequence") return std::make_unique<Sequence>(value, path);
  if (type == "ByteLevel") return std::make_unique<ByteLevel>(value, path);
  if (type == "Split") return std::make_unique<Split>(value, path);
  if (type == "Metaspace") return std::make_unique<Metaspace>(value, path);
  if (type == "Whitespace") return std::make_unique<Whitespace>();
  if (type == "WhitespaceSplit") return std::make_unique<WhitespaceSplit>();
  if (type == "Digits") return std::make_unique<Digits>(value, path);
  if (type == "Punctuation") return std::make_unique<Punctuation>(value, path);
  if (type == "BertPreTokenizer") return std::make_unique<BertPreTokenizer>();
  unsupported(type, path,
              "Sequence, ByteLevel, Split, Metaspace, Whitespace, WhitespaceSplit, Digits, Punctuation, BertPreTokenizer");
}

}  // namespace attnscope::tokenizer_json
