#pragma once
// tokenizer.json's "normalizer", as Hugging Face's tokenizers crate applies it: NFC, NFD, NFKC,
// NFKD, Lowercase, Strip, StripAccents, Replace, Prepend, BertNormalizer and Sequence. Each keeps
// every character's input bytes (text.h), so offsets survive normalization.
#include <memory>
#include <string>

#include "text/tokenizer_json/text.h"

namespace attnscope::tokenizer_json {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(Text& text) const = 0;
};

// The normalizer `value` describes at `path`; nullptr for null. Fails naming the path for a type
// it does not know or a malformed field.
std::unique_ptr<Normalizer> make_normalizer(const json& value, const std::string& path);

}  // namespace attnscope::tokenizer_json
