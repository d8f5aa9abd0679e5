#pragma once
// How a decode session chooses tokens (see README.md in this folder for the exact rules).
#include <cstdint>
#include <string>
#include <vector>

#include "model/interventions.h"
#include "model/trace.h"

namespace attnscope {

enum class Strategy { Greedy, Beam, Sample };
enum class LengthPenalty { None, Average, GNMT };

struct DecodeOptions {
  Strategy strategy = Strategy::Greedy;

  // Beam search.
  int beam_size = 4;
  int nbest = 1;  // hypotheses returned, at most beam_size
  LengthPenalty length_penalty = LengthPenalty::None;
  double alpha = 0.6;  // GNMT exponent

  // Limits, in generated tokens (</s> included). 0 / 0.0 = not set.
  int max_length = 0;
  double max_length_a = 0.0, max_length_b = 0.0;  // limit = floor(a * source_tokens + b)
  int min_length = 0;                             // </s> is forbidden before this many tokens

  // Repetition (all strategies). 0 / 1.0 = off.
  int no_repeat_ngram_size = 0;     // n: no token may complete an n-gram the hypothesis already has
  double repetition_penalty = 1.0;  // θ: a seen token's logit x becomes x / θ (x > 0) or x · θ

  // Sampling.
  double temperature = 1.0;
  int top_k = 0;       // 0 = no top-k truncation
  double top_p = 1.0;  // 1 = no nucleus truncation
  std::uint64_t seed = 0;

  std::vector<int> prefix;  // target ids forced first (no <s>)
  int alternatives = 10;    // top alternatives reported per step and hypothesis
  Capture capture;
  Interventions interventions;  // empty: the model as trained

  // Throws InputError naming the option that is out of range.
  void validate() const;
};

Strategy parse_strategy(const std::string& name);            // "greedy" | "beam" | "sample"
LengthPenalty parse_length_penalty(const std::string& name);  // "none" | "average" | "gnmt"
const char* to_string(Strategy s);
const char* to_string(LengthPenalty p);

// The penalised score of a finished hypothesis with raw score `score` and `length` tokens.
double penalized_score(double score, int length, LengthPenalty penalty, double alpha);

}  // namespace attnscope
