#pragma once
// tokenizer.json's "added_tokens", split out of the text before the pipeline as the tokenizers
// crate's AddedVocabulary does: first the tokens with normalized false, matched in the input as it
// is; then, in each remaining part once normalized, those with normalized true (matched against
// their own normalized text). A match is the leftmost, and of those the longest; single_word
// ones only between non-word characters (\w); lstrip and rstrip take in the white space before
// and after them.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "text/tokenizer_json/normalizers.h"

namespace attnscope::tokenizer_json {

struct AddedToken {
  std::string content;
  int id;
  bool single_word, lstrip, rstrip, normalized, special;
};

// A part of the text: an added token, or text for the pipeline.
struct Section {
  Text text;
  const AddedToken* token = nullptr;
};

class AddedTokens {
 public:
  // `normalizer` (may be null) normalizes the contents of tokens with normalized true.
  AddedTokens(const json& value, const std::string& path, const Normalizer* normalizer);

  // `text` cut into added tokens and normalized parts (empty parts left out).
  std::vector<Section> split(const Text& text, const Normalizer* normalizer) const;

  const std::vector<AddedToken>& tokens() const { return tokens_; }
  const AddedToken* find(int id) const;

 private:
  // A trie over code points of the tokens' texts.
  struct Matcher {
    struct Node {
      std::unordered_map<char32_t, int> next;
      int token = -1;  // index in tokens_
    };
    std::vector<Node> nodes{1};
    void add(const std::u32string& text, int token);
    bool empty() const { return nodes.size() == 1; }
  };
  void split_with(const Text& text, const Matcher& m, std::vector<Section>& out) const;

  std::vector<AddedToken> tokens_;
  std::unordered_map<int, std::size_t> by_id_;
  Matcher raw_, normalized_;
};

}  // namespace attnscope::tokenizer_json
