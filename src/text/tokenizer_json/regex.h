#pragma once
// The regular expressions of tokenizer.json (a Split pre-tokenizer's or a Replace's "Regex"),
// which Hugging Face's tokenizers crate runs with Oniguruma: a small backtracking matcher over code
// points with the constructs real tokenizers use, GPT-2's, Llama 3's and Qwen2's among them:
//
//   alternation |, groups ( ) (?: ) (?i: ) (?-i: ), lookahead (?= ) (?! ), quantifiers ? * + {n}
//   {n,} {n,m} (greedy, or lazy with a trailing ?), . (anything but \n), classes [ ] [^ ] with
//   ranges and escapes, \p{..} \P{..} of a general category (L, Lu, N, Nd, P, ...), \s \S (the
//   White_Space property), \d \D (Nd), \w \W (L, M, Nd, Nl, Pc), \t \n \r \f \v \e \a \0, \xHH
//   \x{H..} \uHHHH, and any other escaped punctuation as itself.
//
// Anything else (anchors, word boundaries, lookbehind, back-references, atomic groups, possessive
// quantifiers, class set operations, POSIX classes, script properties) is refused by name, so a
// file never runs a pattern read differently from the crate. Case-insensitive groups fold case
// as Unicode's simple case folding does for the tokenizers' patterns (lower-casing, ſ as s).
//
// Matching is Oniguruma's: leftmost match, alternatives in order, greedy quantifiers longest
// first, backtracking into them. A search has a budget of steps proportional to the text, so a
// pattern that backtracks catastrophically on some text throws instead of hanging.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attnscope::tokenizer_json {

class Regex {
 public:
  // Throws ModelFileError "<where>: ..." naming what the pattern holds that is not supported.
  Regex(const std::string& pattern, const std::string& where);

  struct Match {
    std::size_t begin, end;  // code points of the text
  };
  // The successive non-overlapping leftmost matches (an empty match advances the search by one
  // code point). Throws InputError when the matcher runs out of its step budget.
  std::vector<Match> find_all(const std::u32string& text) const;
  const std::string& pattern() const { return pattern_; }

  // Steps a search may take: this many per code point of the text, plus kStepFloor.
  static constexpr std::size_t kStepsPerChar = 2000;
  static constexpr std::size_t kStepFloor = 100000;

  struct ClassItem {
    enum Kind : std::uint8_t { Range, Categories, WhiteSpace, Word };
    Kind kind;
    bool negated;
    char32_t lo, hi;         // Range
    std::uint32_t categories;  // Categories: a bit per unicode::Category
  };
  struct CharClass {
    std::vector<ClassItem> items;
    bool negated = false;
    bool icase = false;
    bool matches(char32_t c) const;
  };
  struct Instruction {
    enum Op : std::uint8_t { Class, Split, Jump, Look, Match } op;
    bool negated = false;   // Look: (?! ) rather than (?= )
    int x = 0, y = 0;       // Class: the class; Split: preferred, other target; Jump: target; Look: start of its body, continuation
  };

 private:
  // The position after a match of the program from `pc` at `pos`, or npos; counts steps.
  std::size_t run(int pc, const std::u32string& text, std::size_t pos, std::size_t& steps, std::size_t budget) const;

  std::string pattern_;
  std::vector<CharClass> classes_;
  std::vector<Instruction> program_;
  friend class RegexCompiler;
};

}  // namespace attnscope::tokenizer_json
