#pragma once
// tokenizer.json's BPE model, as the tokenizers crate's models/bpe: a word's characters (with
// continuing_subword_prefix on all but the first, end_of_word_suffix on the last) become vocabulary
// symbols, a character the vocabulary lacks becoming its UTF-8 bytes' <0xXX> tokens (byte_fallback)
// or the unknown token (runs of them one token with fuse_unk), or nothing without an unk_token;
// then merges apply one at a time, the lowest rank first, then the leftmost (Word::merge_all).
// With ignore_merges a word that is itself a vocabulary entry is that one token. Dropout other
// than null or 0 is refused: this reader is deterministic.
#include <string>

#include "text/bpe_merge.h"
#include "text/tokenizer_json/model.h"

namespace attnscope::tokenizer_json {

class BpeModel : public Model {
 public:
  // Fails naming the field for a merge whose symbols or result are not in the vocabulary, more
  // than kMaxMerges merges, or an unk_token not in the vocabulary.
  BpeModel(const json& value, const std::string& path);
  void tokenize(const std::u32string& word, std::vector<ModelToken>& out) const override;
  const char* type() const override { return "BPE"; }

 private:
  BpeMergeTable merges_;
  int unk_id_ = -1;
  std::string prefix_, suffix_;
  bool fuse_unk_, byte_fallback_, ignore_merges_;
  int byte_ids_[256];  // the <0xXX> tokens' ids, -1 where absent
};

}  // namespace attnscope::tokenizer_json
