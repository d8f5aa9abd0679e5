#pragma once
// A Hugging Face tokenizer.json (the tokenizers crate's serialized Tokenizer) read into the engine:
// added tokens split out, then normalizer, pre-tokenizer, model (BPE, WordPiece, Unigram),
// post-processor; decoding through the decoder. Each stage follows the crate's semantics
// (docs/tokenizer-json.md: what is supported, what is refused, and where @huggingface/tokenizers,
// the JavaScript port the goldens come from, reads a file differently).
//
// Input bytes that are not UTF-8 are read as a JS string made of them is: one U+FFFD for each
// maximal ill-formed part (text.h, read_input), whose offsets cover those bytes.
#include <memory>
#include <string>
#include <vector>

#include "text/tokenizer.h"
#include "text/tokenizer_json/added_tokens.h"
#include "text/tokenizer_json/decoders.h"
#include "text/tokenizer_json/encoding.h"
#include "text/tokenizer_json/model.h"
#include "text/tokenizer_json/normalizers.h"
#include "text/tokenizer_json/post_processors.h"
#include "text/tokenizer_json/pre_tokenizers.h"

namespace attnscope {

class TokenizerJson : public Tokenizer {
 public:
  using Encoding = tokenizer_json::Encoding;

  // Reads a tokenizer.json's text. Throws ModelFileError naming the JSON path of what is malformed
  // or not supported (a component's type, a regex construct, a merge naming an unknown piece, a
  // table larger than text/table_limits.h allows).
  static std::unique_ptr<TokenizerJson> from_json(const std::string& tokenizer_json);

  // The tokens of `text` (UTF-8; offsets are byte offsets into it), with the post-processor's
  // special tokens when `add_special_tokens`.
  Encoding encode(const std::string& text, bool add_special_tokens = true) const;
  // The text of `ids` through the decoder (tokens joined by spaces without one), special added
  // tokens left out when `skip_special_tokens`. Throws IndexError for an id no token has.
  std::string decode(const std::vector<int>& ids, bool skip_special_tokens = false) const;

  // Every token by id, the added ones included ("" for an id that has none).
  const Vocabulary& vocabulary() const { return vocabulary_; }
  int token_to_id(const std::string& token) const { return vocabulary_.id(token, -1); }
  const std::vector<tokenizer_json::AddedToken>& added_tokens() const { return added_->tokens(); }
  const char* model_type() const { return model_->type(); }

  // Tokenizer: the pieces of encode(text, false); the work stops at the first pre-token past
  // max_pieces. join: the decoder over the pieces.
  bool split_within(const std::string& text, std::size_t max_pieces, std::vector<std::string>& pieces) const override;
  std::string join(const std::vector<std::string>& pieces) const override;
  std::string to_json() const override;

 private:
  TokenizerJson() = default;
  // encode without the post-processor; false once more than max_pieces tokens are made.
  bool encode_plain(const std::string& text, std::size_t max_pieces, Encoding& out) const;
  std::string decode_tokens(std::vector<std::string> tokens) const;

  std::unique_ptr<tokenizer_json::Normalizer> normalizer_;
  std::unique_ptr<tokenizer_json::PreTokenizer> pre_tokenizer_;
  std::unique_ptr<tokenizer_json::Model> model_;
  std::unique_ptr<tokenizer_json::PostProcessor> post_processor_;
  std::unique_ptr<tokenizer_json::Decoder> decoder_;
  std::unique_ptr<tokenizer_json::AddedTokens> added_;
  Vocabulary vocabulary_;
  std::vector<bool> has_token_;  // by id
};

}  // namespace attnscope
