#include "text/tokenizer.h"

#include <algorithm>

#include "core/base64.h"
#include "core/error.h"
#include "core/json.h"
#include "core/quote.h"
#include "text/bpe_tokenizer.h"
#include "text/byte_bpe_tokenizer.h"
#include "text/table_limits.h"
#include "text/sentencepiece_tokenizer.h"
#include "text/word_tokenizer.h"
#include "text/wordpiece_tokenizer.h"

namespace attnscope {
namespace {

// The "sentencepiece" type: a SentencePiece model whose pieces the model's vocabulary maps to
// ids, as Hugging Face's MarianTokenizer does with source.spm / target.spm and vocab.json.
class VocabularySentencePiece : public Tokenizer {
 public:
  VocabularySentencePiece(std::string_view model_bytes, bool language_codes, std::string unk)
      : model_(model_bytes), language_codes_(language_codes), unk_(std::move(unk)) {}

  // MarianTokenizer._tokenize: a leading ">>xx<<" (">>" up to the first "<<") is one piece of
  // its own (remove_language_code); the rest is the SentencePiece model's pieces.
  bool split_within(const std::string& text, std::size_t max_pieces, std::vector<std::string>& pieces) const override {
    std::string_view rest = text;
    if (language_codes_ && rest.substr(0, 2) == ">>") {
      const std::size_t end = rest.find("<<");
      if (end != std::string_view::npos) {
        if (max_pieces == 0) return false;
        pieces.emplace_back(rest.substr(0, end + 2));
        rest.remove_prefix(end + 2);
        --max_pieces;
      }
    }
    return model_.split_within(std::string(rest), max_pieces, pieces);
  }

  // MarianTokenizer.decode(skip_special_tokens=True): the unk piece (a special token there) is
  // left out, then convert_tokens_to_string: the model's decode_pieces, every "▁" left (in a piece
  // the model does not know) as a space, and white space stripped at both ends.
  std::string join(const std::vector<std::string>& pieces) const override {
    std::vector<std::string> kept;
    for (const std::string& p : pieces)
      if (unk_.empty() || p != unk_) kept.push_back(p);
    std::string text;
    const std::string decoded = model_.decode_pieces(kept);
    for (std::size_t i = 0; i < decoded.size();) {
      if (decoded.compare(i, kSentencePieceSpace.size(), kSentencePieceSpace) == 0) {
        text += ' ';
        i += kSentencePieceSpace.size();
      } else {
        text += decoded[i++];
      }
    }
    const char* space = " \t\n\r\v\f";
    const std::size_t first = text.find_first_not_of(space);
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(space) - first + 1);
  }

  // A description (the model's bytes are not repeated): the SentencePiece model's, plus the flag.
  std::string to_json() const override {
    nlohmann::json j = parse_json(model_.to_json(), "sentencepiece description", JsonSource::ModelFile);
    j["language_codes"] = language_codes_;
    if (!unk_.empty()) j["unk"] = unk_;
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

 private:
  SentencePieceTokenizer model_;
  bool language_codes_;
  std::string unk_;  // the vocabulary's unknown piece, dropped when decoding; "" keeps every piece
};

}  // namespace

std::unique_ptr<Tokenizer> Tokenizer::from_json(const std::string& text, const Vocabulary& vocab) {
  using json = nlohmann::json;
  // Its only long array is the merges: their count is checked before the parser builds them.
  const json j = parse_json(text, "tokenizer metadata", JsonSource::ModelFile, false, kMaxMerges);
  auto flag = [&](const char* name, bool fallback) {
    if (!j.contains(name)) return fallback;
    if (!j[name].is_boolean()) throw ModelFileError(std::string("tokenizer field '") + name + "' must be a boolean");
    return j[name].get<bool>();
  };
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
    throw ModelFileError("tokenizer metadata needs a string field 'type'");
  const std::string type = j["type"];
  if (type == "word") return std::make_unique<WordTokenizer>(flag("lowercase", false), flag("split_punctuation", false));
  auto merges = [&](const char* what) {
    if (!j.contains("merges") || !j["merges"].is_array())
      throw ModelFileError(std::string(what) + " tokenizer metadata needs an array field 'merges'");
    std::vector<std::string> out;
    for (const json& m : j["merges"]) {
      if (!m.is_string()) throw ModelFileError(std::string(what) + " merges must be strings");
      out.push_back(m.get<std::string>());
    }
    return out;
  };
  if (type == "bpe") return std::make_unique<BpeTokenizer>(merges("BPE"), flag("lowercase", false));
  if (type == "byte_bpe") return std::make_unique<ByteBpeTokenizer>(merges("byte_bpe"), vocab);
  if (type == "wordpiece") {
    WordPieceTokenizer::Options o;
    o.lowercase = flag("lowercase", true);
    o.strip_accents = flag("strip_accents", o.lowercase);  // BERT strips accents exactly when it lower-cases
    o.tokenize_chinese_chars = flag("tokenize_chinese_chars", true);
    if (j.contains("unk")) {
      if (!j["unk"].is_string()) throw ModelFileError("tokenizer field 'unk' must be a string");
      o.unk = j["unk"].get<std::string>();
    }
    if (j.contains("max_chars_per_word")) {
      const json& m = j["max_chars_per_word"];
      if (!m.is_number_integer() || m.get<long long>() < 1 || m.get<long long>() > 100000)
        throw ModelFileError("tokenizer field 'max_chars_per_word' must be an integer in [1, 100000]");
      o.max_chars_per_word = m.get<int>();
    }
    if (j.contains("never_split")) {
      if (!j["never_split"].is_array()) throw ModelFileError("tokenizer field 'never_split' must be an array");
      for (const json& s : j["never_split"]) {
        if (!s.is_string() || s.get<std::string>().empty())
          throw ModelFileError("tokenizer field 'never_split' must hold non-empty strings");
        o.never_split.push_back(s.get<std::string>());
      }
    }
    if (j.contains("never_split_words")) {
      if (!j["never_split_words"].is_array())
        throw ModelFileError("tokenizer field 'never_split_words' must be an array");
      for (const json& s : j["never_split_words"]) {
        if (!s.is_string() || s.get<std::string>().empty())
          throw ModelFileError("tokenizer field 'never_split_words' must hold non-empty strings");
        o.never_split_words.push_back(s.get<std::string>());
      }
    }
    if (vocab.size() == 0) throw ModelFileError("a wordpiece tokenizer needs the model's vocabulary");
    if (!vocab.contains(o.unk)) throw ModelFileError("wordpiece unk piece " + quote(o.unk) + " is not in the vocabulary");
    return std::make_unique<WordPieceTokenizer>(std::move(o), vocab);
  }
  if (type == "sentencepiece") {
    if (!j.contains("model") || !j["model"].is_string())
      throw ModelFileError("sentencepiece tokenizer metadata needs a string field 'model' (the .model file in base64)");
    const std::string bytes = base64_decode(j["model"].get<std::string>(), "sentencepiece tokenizer field 'model'");
    std::string unk;
    if (j.contains("unk")) {
      if (!j["unk"].is_string()) throw ModelFileError("sentencepiece tokenizer field 'unk' must be a string");
      unk = j["unk"].get<std::string>();
    }
    return std::make_unique<VocabularySentencePiece>(bytes, flag("language_codes", false), std::move(unk));
  }
  throw ModelFileError("tokenizer type " + quote(type) +
                       " is not supported (use \"word\", \"bpe\", \"byte_bpe\", \"wordpiece\" or \"sentencepiece\")");
}

std::vector<std::string> Tokenizer::split(const std::string& text) const {
  std::vector<std::string> pieces;
  split_within(text, kNoPieceLimit, pieces);
  return pieces;
}

Encoded encode(const Tokenizer& tokenizer, const Vocabulary& vocab, const std::string& text, int unk_id,
               std::size_t max_pieces) {
  Encoded out;
  out.over_limit = !tokenizer.split_within(text, max_pieces, out.pieces);
  out.ids.reserve(out.pieces.size());
  for (const std::string& piece : out.pieces) {
    const int id = vocab.id(piece, -1);
    if (id < 0) out.unknown.push_back(piece);
    out.ids.push_back(id < 0 ? unk_id : id);
  }
  return out;
}

std::string decode(const Tokenizer& tokenizer, const Vocabulary& vocab, const std::vector<int>& ids,
                   const std::vector<int>& skip) {
  std::vector<std::string> pieces;
  for (int id : ids)
    if (std::find(skip.begin(), skip.end(), id) == skip.end()) pieces.push_back(vocab.token(id));
  return tokenizer.join(pieces);
}

}  // namespace attnscope
