#pragma once
// BERT's WordPiece tokenizer (Devlin et al. 2019): the basic tokenizer (clean-up, CJK spacing,
// lower-casing and accent stripping, punctuation splitting), then greedy longest-match-first
// WordPiece with "##" continuations over the model's vocabulary. The rules, step by step, are in
// models/FORMAT.md ("wordpiece") and the Python reference models/reference/attnscope_ref/wordpiece.py.
#include <string>
#include <vector>

#include "text/tokenizer.h"

namespace attnscope {

// What BERT's basic tokenizer splits off as punctuation: Unicode category P* and every ASCII
// non-letter, non-digit symbol ($ + < = > ^ ` | ~ ...).
bool bert_is_punctuation(char32_t c);
// What it spaces apart as Chinese: the CJK Unified Ideographs blocks (not Hangul, Hiragana or
// Katakana: those are spaced like Latin).
bool bert_is_chinese_char(char32_t c);

class WordPieceTokenizer : public Tokenizer {
 public:
  struct Options {
    bool lowercase = true;                 // Python's str.lower() on every word
    bool strip_accents = true;             // NFD, then drop every Mn mark (BERT: the same as lowercase)
    bool tokenize_chinese_chars = true;    // a space on each side of every CJK ideograph
    std::string unk = "[UNK]";             // the piece of a word WordPiece cannot cut
    int max_chars_per_word = 100;          // longer words are unk
    std::vector<std::string> never_split;  // special tokens kept whole wherever they appear
    // Hugging Face BasicTokenizer's never_split: a white-space word equal to one is kept as it
    // is (not lower-cased, stripped, split at punctuation or cut by WordPiece).
    std::vector<std::string> never_split_words;
  };
  // `vocab`: the model's vocabulary (continuation pieces start with "##"); copied.
  WordPieceTokenizer(Options options, const Vocabulary& vocab);

  bool split_within(const std::string& text, std::size_t max_pieces, std::vector<std::string>& pieces) const override;
  // Pieces joined with spaces, "##" pieces glued to the one before.
  std::string join(const std::vector<std::string>& pieces) const override;
  std::string to_json() const override;

  // The basic tokenizer alone (step 1 of FORMAT.md's rules): the words WordPiece then cuts.
  std::vector<std::u32string> basic_words(const std::u32string& text) const;
  // WordPiece on one word.
  void cut(const std::u32string& word, std::vector<std::string>& pieces) const;

 private:
  bool is_kept_word(const std::u32string& word) const;

  Options options_;
  std::vector<std::string> specials_;  // never_split, longest first
  std::vector<std::u32string> kept_words_;  // never_split_words, decoded
  Vocabulary vocab_;
  std::size_t longest_piece_ = 0;  // code points of the vocabulary's longest entry
};

}  // namespace attnscope
