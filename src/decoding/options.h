#pragma once
// How a decode session chooses tokens (see README.md in this folder for the exact rules).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/generation.h"
#include "model/interventions.h"
#include "model/trace.h"

namespace attnscope {

enum class Strategy { Greedy, Beam, Sample };
enum class LengthPenalty { None, Average, GNMT, Power };
// When beam search stops (README.md): Bound, the engine's rule, stops only when no live hypothesis
// can still beat the n-th best; the others are Hugging Face's `early_stopping` values (False,
// True, "never"), so that a checkpoint's beam search can be reproduced.
enum class EarlyStopping { Bound, Heuristic, Early, Never };

struct DecodeOptions {
  Strategy strategy = Strategy::Greedy;

  // Beam search.
  int beam_size = 4;
  int nbest = 1;  // hypotheses returned, at most beam_size
  LengthPenalty length_penalty = LengthPenalty::None;
  double alpha = 0.6;  // GNMT and power exponent
  EarlyStopping early_stopping = EarlyStopping::Bound;

  // Limits, in generated tokens (</s> included). 0 / 0.0 = not set.
  int max_length = 0;
  double max_length_a = 0.0, max_length_b = 0.0;  // limit = floor(a * source_tokens + b)
  int min_length = 0;                             // </s> is forbidden before this many tokens
  bool forced_eos = false;   // the limit-th token is </s> (HF's forced_eos_token_id)
  bool renormalize = false;  // after the Ban rules, log p is renormalised over the allowed tokens (HF's renormalize_logits)

  // Repetition (all strategies). 0 / 1.0 = off.
  int no_repeat_ngram_size = 0;     // n: no token may complete an n-gram the hypothesis already has
  double repetition_penalty = 1.0;  // θ: a seen token's logit x becomes x / θ (x > 0) or x · θ

  // Sampling.
  double temperature = 1.0;
  int top_k = 0;       // 0 = no top-k truncation
  double top_p = 1.0;  // 1 = no nucleus truncation
  std::uint64_t seed = 0;

  std::vector<int> prefix;  // target ids forced first (no <s>)
  // A decoder-only model's prompt: <bos> first or not, overriding the model file's rule; unset:
  // the rule. Read where the prompt is tokenised (prepare_source, decoding/source.h).
  std::optional<bool> prepend_bos;
  int alternatives = 10;    // top alternatives reported per step and hypothesis
  Capture capture;
  Interventions interventions;  // empty: the model as trained

  // Throws InputError naming the option that is out of range.
  void validate() const;
};

Strategy parse_strategy(const std::string& name);            // "greedy" | "beam" | "sample"
LengthPenalty parse_length_penalty(const std::string& name);  // "none" | "average" | "gnmt" | "power"
EarlyStopping parse_early_stopping(const std::string& name);  // "bound" | "heuristic" | "early" | "never"
const char* to_string(Strategy s);
const char* to_string(LengthPenalty p);
const char* to_string(EarlyStopping e);

// `o` with every field the model's generation defaults set (model/generation.h) replaced by it.
DecodeOptions with_generation_defaults(DecodeOptions o, const GenerationDefaults& g);

// The penalised score of a finished hypothesis with raw score `score` and `length` tokens.
double penalized_score(double score, int length, LengthPenalty penalty, double alpha);

}  // namespace attnscope
