#pragma once
// tokenizer.json's "model": what cuts a pre-tokenized piece into vocabulary tokens. BPE, WordPiece
// and Unigram (bpe_model.h, wordpiece_model.h, unigram_model.h); each keeps its vocabulary here.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "text/tokenizer_json/json_fields.h"

namespace attnscope::tokenizer_json {

struct ModelToken {
  int id;
  std::string value;       // the token's text: its vocabulary entry, or what an unknown token covers (Unigram)
  std::size_t begin, end;  // the code points of the word it covers
};

class Model {
 public:
  virtual ~Model() = default;
  // Appends the tokens of `word` (a pre-token's code points) to `out`.
  virtual void tokenize(const std::u32string& word, std::vector<ModelToken>& out) const = 0;
  virtual const char* type() const = 0;

  // The vocabulary: the entry of each id ("" where an id has none), and the id of an entry.
  const std::vector<std::string>& entries() const { return entries_; }
  int id_of(const std::string& token) const {
    const auto it = ids_.find(token);
    return it == ids_.end() ? -1 : it->second;
  }

 protected:
  // Reads a {"token": id, ...} object, each id in [0, kMaxVocabulary); fails on a repeated id.
  void read_vocab_object(const json& vocab, const std::string& path);
  // Adds one entry (Unigram's list order).
  void add_entry(std::string token, int id, const std::string& path);

  std::vector<std::string> entries_;
  std::unordered_map<std::string, int> ids_;
};

std::unique_ptr<Model> make_model(const json& value, const std::string& path);

}  // namespace attnscope::tokenizer_json
