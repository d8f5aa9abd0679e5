#pragma once
// Greedy translation: at every step take the most probable next token.
#include <string>
#include <vector>

#include "decoding/source.h"
#include "model/trace.h"

namespace attnscope {

struct GreedyOptions {
  int max_steps = 0;  // generated tokens at most; 0 = as many as the model's positions allow
  Capture capture;
};

struct GreedyStep {
  int input_id = 0;   // token fed at this position (<s> first)
  int output_id = 0;  // argmax of the logits
  std::vector<float> logits, log_probs;  // when capture.logits
  StepTrace trace;                       // when capture.attention / capture.vectors
};

struct Translation {
  Source source;
  std::vector<int> output_ids;  // generated ids, </s> included if produced
  std::string text;             // detokenised, without specials
  bool finished = false;        // ended by </s>
  bool hit_max_length = false;  // stopped by max_steps or the model's positions instead
  EncoderTrace encoder;
  std::vector<GreedyStep> steps;
};

Translation translate_greedy(const Model& model, const std::string& text, const GreedyOptions& options);
Translation translate_greedy(const Model& model, Source source, const GreedyOptions& options);

// Index of the largest value; the lowest index wins ties, so decoding is deterministic.
int argmax(const float* values, int n);

}  // namespace attnscope
