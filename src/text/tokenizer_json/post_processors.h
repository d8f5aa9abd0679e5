#pragma once
// tokenizer.json's "post_processor" on one sequence (no pairs), as the tokenizers crate's
// processors: TemplateProcessing (its "single" template), BertProcessing ([CLS] A [SEP]),
// RobertaProcessing (<s> A </s>, offsets trimmed), ByteLevel (offsets trimmed) and Sequence.
// Special tokens are added only when asked for; offsets are trimmed either way.
#include <memory>
#include <string>

#include "text/tokenizer_json/encoding.h"
#include "text/tokenizer_json/json_fields.h"

namespace attnscope::tokenizer_json {

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  virtual void process(Encoding& encoding, bool add_special_tokens) const = 0;
};

std::unique_ptr<PostProcessor> make_post_processor(const json& value, const std::string& path);

}  // namespace attnscope::tokenizer_json
