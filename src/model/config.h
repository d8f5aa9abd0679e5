#pragma once
// The config fields every family shares, stored in a model file's metadata (models/FORMAT.md);
// each family parses its own from the same object (families/<name>/config.cpp).
#include <string>
#include <vector>

#include "core/architecture.h"

namespace attnscope {

struct SpecialTokens {
  int pad = 0, unk = 1, bos = 2, eos = 3;
};

struct ModelConfig {
  // The model family (models/FORMAT.md): picks the loader and the forward pass. Absent from
  // a file: "transformer".
  std::string architecture = "transformer";
  // The file's config object as written: each family parses its own fields from it
  // (families/<name>/config.cpp); only the fields every family shares are read here.
  std::string family_json;
  int max_positions = 0;
  bool shared_embeddings = false;  // absent from a file: false
  bool src_append_eos = true;      // absent from a file: false
  // A prompt-reading family's rule (models/FORMAT.md, the decoder-only family): the prompt's ids
  // start with <bos>, as the tokenizer the model comes from adds one. Absent from a file: true,
  // what the engine's own decoder-only models learned (<bos> first). Read by prepare_source
  // (decoding/source.h), which an override and the empty prompt may overrule.
  bool prepend_bos = true;
  SpecialTokens special;
  // Target ids the decoder never chooses (a Ban rule of every strategy; src/decoding/README.md).
  // Marian: its pad, which is also its decoder start. Checked against tgt_vocab by the loader.
  std::vector<int> suppress_tokens;

  // Parses the `config` metadata JSON's shared fields; throws ModelFileError naming the bad field.
  static ModelConfig from_json(const std::string& text);
  // The config object as the file holds it (family_json).
  std::string to_json() const { return family_json; }
};

}  // namespace attnscope
