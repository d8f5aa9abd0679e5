#pragma once
// tokenizer.json's "decoder", as the tokenizers crate's decoders: each turns a list of token
// texts into another (decode_chain), and decoding concatenates what the last one gives. ByteLevel,
// Metaspace, WordPiece, BPEDecoder, ByteFallback, Fuse, Strip, Replace, CTC and Sequence.
#include <memory>
#include <string>
#include <vector>

#include "text/tokenizer_json/json_fields.h"

namespace attnscope::tokenizer_json {

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual std::vector<std::string> decode_chain(std::vector<std::string> tokens) const = 0;
};

std::unique_ptr<Decoder> make_decoder(const json& value, const std::string& path);

}  // namespace attnscope::tokenizer_json
