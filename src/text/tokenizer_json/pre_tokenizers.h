#pragma once
// tokenizer.json's "pre_tokenizer", as Hugging Face's tokenizers crate applies it: ByteLevel,
// Split, Metaspace, Whitespace, WhitespaceSplit, Digits, BertPreTokenizer, Punctuation and
// Sequence. Each cuts every piece of text further (keeping each character's input bytes); ByteLevel
// also turns every character into the characters of its UTF-8 bytes (text/byte_bpe_alphabet.h).
#include <memory>
#include <string>
#include <vector>

#include "text/tokenizer_json/text.h"

namespace attnscope::tokenizer_json {

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Cuts each of `pieces` further, in place.
  virtual void pre_tokenize(std::vector<Text>& pieces) const = 0;
};

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const json& value, const std::string& path);

// GPT-2's pre-tokenization pattern, which the ByteLevel pre-tokenizer cuts with.
extern const char* const kGpt2Pattern;

}  // namespace attnscope::tokenizer_json
