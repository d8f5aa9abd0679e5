#include "text/tokenizer_json/tokenizer_json.h"

#include "core/error.h"
#include "core/json.h"
#include "text/table_limits.h"
#include "text/utf8.h"

namespace attnscope {

using namespace tokenizer_json;

std::unique_ptr<TokenizerJson> TokenizerJson::from_json(const std::string& tokenizer_json) {
  // The long arrays are a vocabulary's and the merges: their length is checked before parsing.
  const json j = parse_json(tokenizer_json, "tokenizer.json", JsonSource::ModelFile, false,
                            std::max(kMaxMerges, kMaxVocabulary));
  if (!j.is_object()) fail("(the top level)", "must be an object");
  std::unique_ptr<TokenizerJson> t(new TokenizerJson());
  const json null;
  const auto field = [&](const char* key) -> const json& { return j.contains(key) ? j[key] : null; };
  t->normalizer_ = make_normalizer(field("normalizer"), "normalizer");
  t->pre_tokenizer_ = make_pre_tokenizer(field("pre_tokenizer"), "pre_tokenizer");
  t->model_ = make_model(required(j, "model", "(the top level)"), "model");
  t->post_processor_ = make_post_processor(field("post_processor"), "post_processor");
  t->decoder_ = make_decoder(field("decoder"), "decoder");
  t->added_ = std::make_unique<AddedTokens>(field("added_tokens"), "added_tokens", t->normalizer_.get());

  // The vocabulary: the model's entries, and the added tokens at their ids.
  std::vector<std::string> entries = t->model_->entries();
  std::vector<bool> has(entries.size(), true);
  for (std::size_t id = 0; id < entries.size(); ++id) has[id] = t->model_->id_of(entries[id]) == static_cast<int>(id);
  for (const AddedToken& a : t->added_->tokens()) {
    const auto id = static_cast<std::size_t>(a.id);
    if (id >= entries.size()) {
      entries.resize(id + 1);
      has.resize(id + 1, false);
    }
    entries[id] = a.content;
    has[id] = true;
  }
  t->vocabulary_ = Vocabulary(std::move(entries));
  t->has_token_ = std::move(has);
  return t;
}

bool TokenizerJson::encode_plain(const std::string& text, std::size_t max_pieces, Encoding& out) const {
  std::vector<ModelToken> tokens;
  for (Section& section : added_->split(read_input(text), normalizer_.get())) {
    if (out.size() >= max_pieces) return false;
    if (section.token) {
      out.push(section.token->id, section.token->content, section.text.front().begin, section.text.back().end,
               section.token->special);
      continue;
    }
    std::vector<Text> pieces{std::move(section.text)};
    if (pre_tokenizer_) pre_tokenizer_->pre_tokenize(pieces);
    for (const Text& piece : pieces) {
      tokens.clear();
      model_->tokenize(codes(piece), tokens);
      for (ModelToken& m : tokens) {
        // A token covers the input bytes of its characters.
        std::size_t begin = piece[m.begin].begin, end = piece[m.begin].end;
        for (std::size_t k = m.begin; k < m.end; ++k) {
          begin = std::min<std::size_t>(begin, piece[k].begin);
          end = std::max<std::size_t>(end, piece[k].end);
        }
        out.push(m.id, std::move(m.value), begin, end, false);
      }
      if (out.size() > max_pieces) return false;
    }
  }
  return true;
}

TokenizerJson::Encoding TokenizerJson::encode(const std::string& text, bool add_special_tokens) const {
  Encoding out;
  encode_plain(text, kNoPieceLimit, out);
  if (post_processor_) post_processor_->process(out, add_special_tokens);
  return out;
}

std::string TokenizerJson::decode_tokens(std::vector<std::string> tokens) const {
  if (!decoder_) {
    std::string out;
    for (std::size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
    return out;
  }
  std::string out;
  for (const std::string& t : decoder_->decode_chain(std::move(tokens))) out += t;
  return out;
}

std::string TokenizerJson::decode(const std::vector<int>& ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  for (int id : ids) {
    if (id < 0 || id >= vocabulary_.size() || !has_token_[static_cast<std::size_t>(id)])
      throw IndexError("token id " + std::to_string(id) + " is not in the tokenizer's vocabulary (" +
                       std::to_string(vocabulary_.size()) + " ids)");
    if (skip_special_tokens) {
      const AddedToken* a = added_->find(id);
      if (a && a->special) continue;
    }
    tokens.push_back(vocabulary_.token(id));
  }
  return decode_tokens(std::move(tokens));
}

bool TokenizerJson::split_within(const std::string& text, std::size_t max_pieces, std::vector<std::string>& pieces) const {
  Encoding out;
  const bool within = encode_plain(text, max_pieces, out);
  for (std::string& p : out.pieces) pieces.push_back(std::move(p));
  return within;
}

std::string TokenizerJson::join(const std::vector<std::string>& pieces) const { return decode_tokens(pieces); }

std::string TokenizerJson::to_json() const {
  return nlohmann::json{{"type", "tokenizer.json"},
                        {"model", model_->type()},
                        {"vocabulary", vocabulary_.size()},
                        {"added_tokens", added_->tokens().size()}}
      .dump();
}

}  // namespace attnscope
