#include "text/tokenizer.h"

#include <algorithm>

#include "core/error.h"
#include "core/json.h"
#include "core/quote.h"
#include "text/bpe_tokenizer.h"
#include "text/word_tokenizer.h"
#include "text/wordpiece_tokenizer.h"

namespace attnscope {

std::unique_ptr<Tokenizer> Tokenizer::from_json(const std::string& text, const Vocabulary& vocab) {
  using json = nlohmann::json;
  const json j = parse_json(text, "tokenizer metadata", JsonSource::ModelFile);
  auto flag = [&](const char* name, bool fallback) {
    if (!j.contains(name)) return fallback;
    if (!j[name].is_boolean()) throw ModelFileError(std::string("tokenizer field '") + name + "' must be a boolean");
    return j[name].get<bool>();
  };
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
    throw ModelFileError("tokenizer metadata needs a string field 'type'");
  const std::string type = j["type"];
  if (type == "word") return std::make_unique<WordTokenizer>(flag("lowercase", false), flag("split_punctuation", false));
  if (type == "bpe") {
    if (!j.contains("merges") || !j["merges"].is_array())
      throw ModelFileError("BPE tokenizer metadata needs an array field 'merges'");
    std::vector<std::string> merges;
    for (const json& m : j["merges"]) {
      if (!m.is_string()) throw ModelFileError("BPE merges must be strings");
      merges.push_back(m.get<std::string>());
    }
    return std::make_unique<BpeTokenizer>(std::move(merges), flag("lowercase", false));
  }
  if (type == "wordpiece") {
    WordPieceTokenizer::Options o;
    o.lowercase = flag("lowercase", true);
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
    if (vocab.size() == 0) throw ModelFileError("a wordpiece tokenizer needs the model's vocabulary");
    if (!vocab.contains(o.unk)) throw ModelFileError("wordpiece unk piece " + quote(o.unk) + " is not in the vocabulary");
    return std::make_unique<WordPieceTokenizer>(std::move(o), vocab);
  }
  throw ModelFileError("tokenizer type " + quote(type) + " is not supported (use \"word\", \"bpe\" or \"wordpiece\")");
}

Encoded encode(const Tokenizer& tokenizer, const Vocabulary& vocab, const std::string& text, int unk_id) {
  Encoded out;
  out.pieces = tokenizer.split(text);
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
