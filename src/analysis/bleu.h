#pragma once
// Corpus BLEU as sacreBLEU computes it by default (13a tokenisation, case-sensitive, 4-grams,
// "exp" smoothing), one reference per sentence: enough for the head sweep's ΔBLEU. The full
// sacreBLEU port with its options is models/evaluation/bleu.py; tests/native/bleu_test.cpp checks this
// one against goldens that script wrote.
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace attnscope {

struct Bleu {
  double score = 0.0;                    // 0..100
  std::array<double, 4> precisions{};    // percent, n = 1..4
  double brevity_penalty = 0.0;
  long hyp_len = 0, ref_len = 0;
};

// mteval-v13a tokenisation: the tokens joined by single spaces.
std::string tokenize_13a(const std::string& line);

// How many words `line` has: its runs of non-white-space, as Python's str.split() counts them
// (Unicode white space included; the same split corpus_bleu uses).
std::size_t count_words(const std::string& line);

// Throws InputError if the two lists differ in length.
Bleu corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);

}  // namespace attnscope
