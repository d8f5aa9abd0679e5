#include "text/tokenizer_json/model.h"

#include "core/quote.h"
#include "text/table_limits.h"
#include "text/tokenizer_json/bpe_model.h"
#include "text/tokenizer_json/unigram_model.h"
#include "text/tokenizer_json/wordpiece_model.h"

namespace attnscope::tokenizer_json {

void Model::add_entry(std::string token, int id, const std::string& path) {
  if (id < 0 || static_cast<std::size_t>(id) >= kMaxVocabulary)
    fail(path, "gives " + quote(token) + " the id " + std::to_string(id) + ", outside [0, " +
                   std::to_string(kMaxVocabulary) + ")");
  if (static_cast<std::size_t>(id) >= entries_.size()) entries_.resize(static_cast<std::size_t>(id) + 1);
  if (!entries_[static_cast<std::size_t>(id)].empty() && entries_[static_cast<std::size_t>(id)] != token)
    fail(path, "gives the id " + std::to_string(id) + " to both " + quote(entries_[static_cast<std::size_t>(id)]) +
                   " and " + quote(token));
  entries_[static_cast<std::size_t>(id)] = token;
  ids_.emplace(std::move(token), id);
}

void Model::read_vocab_object(const json& vocab, const std::string& path) {
  if (!vocab.is_object()) fail(path, "must be an object {\"token\": id, ...}");
  check_table_size(vocab.size(), kMaxVocabulary, "tokenizer.json's " + path);
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it.value().is_number_integer())
      fail(path, "gives " + quote(it.key()) + " the id " + json_excerpt(it.value()) + ", not an integer");
    const long long id = it.value().get<long long>();
    add_entry(it.key(), id < 0 || id > (1LL << 40) ? -1 : static_cast<int>(id), path);
  }
}

std::unique_ptr<Model> make_model(const json& value, const std::string& path) {
  if (!value.is_object()) fail(path, "must be an object");
  std::string type = text(value, "type", path, "");
  // Files written before models had a "type" are told apart by their fields, as the crate does.
  if (type.empty()) {
    if (value.contains("vocab") && value["vocab"].is_array()) type = "Unigram";
    else if (value.contains("merges")) type = "BPE";
    else if (value.contains("continuing_subword_prefix")) type = "WordPiece";
  }
  if (type == "BPE") return std::make_unique<BpeModel>(value, path);
  if (type == "WordPiece") return std::make_unique<WordPieceModel>(value, path);
  if (type == "Unigram") return std::make_unique<UnigramModel>(value, path);
  unsupported(type, path, "BPE, WordPiece, Unigram");
}

}  // namespace attnscope::tokenizer_json
