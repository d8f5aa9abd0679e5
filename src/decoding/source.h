#pragma once
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"

namespace attnscope {

struct Source {
  // As the model reads them: a translation's source with </s> when the model appends it; a
  // prompt with <bos> first where the model reads one (`bos`).
  std::vector<std::string> pieces;
  std::vector<int> ids;
  std::vector<std::string> unknown;  // pieces that became <unk>
  bool bos = false;                  // ids[0] is the <bos> put before a prompt, not one the text wrote
};

// Tokenises a sentence for the encoder, or a prompt for a decoder-only model. Throws InputError
// for an empty sentence or one longer than the model's positions (we refuse rather than silently
// truncate: a truncated translation would look right and be wrong).
//
// Whether a prompt starts with <bos> is decided here and nowhere else: `prepend_bos` where the
// caller gives it (the `prependBos` option, TransformerLens's prepend_bos), else the model file's
// rule (config prepend_bos: what the tokenizer the model comes from does, as Hugging Face's
// tokenizer adds it or not). An empty prompt starts from <bos> whatever either says (Hugging
// Face's generate() starts from bos_token_id when given no input). `prepend_bos` given for a
// model that reads a source, not a prompt, is an InputError.
Source prepare_source(const Model& model, const std::string& text, std::optional<bool> prepend_bos = std::nullopt);

}  // namespace attnscope
