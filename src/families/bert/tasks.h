#pragma once
// What an encoder-only model is asked: encode a text (one sentence, or a pair written
// "A [SEP] B") for its hidden states and attention, and fill its [MASK]s. Used by the CLI
// (fill-mask) and the bindings; the views get tokens and tensors from here.
#include <string>
#include <vector>

#include "families/bert/bert.h"

namespace attnscope::bert {

// A text as the model reads it: "[CLS] pieces [SEP]".
struct Input {
  std::vector<std::string> pieces;   // [T]
  std::vector<int> ids;              // [T]
  std::vector<int> segments;         // [T]: 0 up to the first [SEP], then 1
  std::vector<std::string> unknown;  // pieces of the text that became [UNK], in order
};

// Throws InputError for a text with no pieces or longer than the model's positions.
Input tokenize(const Model& model, const std::string& text);

struct Candidate {
  int id = 0;
  std::string piece;
  float probability = 0.0f;  // softmax over the vocabulary at that position
  float logit = 0.0f;
};

struct MaskPrediction {
  int position = 0;              // index into Input::pieces
  std::vector<Candidate> top;    // best first, top_k of them
};

struct Encoding {
  Input input;
  Matrix hidden;       // final hidden states [T, d]
  EncoderTrace trace;  // attention ([site][layer][head][T][T]) and named vectors, as captured
};

// Encodes `text`, capturing what `capture` asks for.
Encoding encode_text(const Model& model, const std::string& text, const Capture& capture,
                     const Interventions& interventions = {});

struct FillMask {
  Encoding encoding;
  std::vector<MaskPrediction> masks;  // one per [MASK], left to right
};

// The top_k pieces for every [MASK] of `text`. Throws InputError when the text has no [MASK] or
// top_k is outside [1, vocabulary size].
FillMask fill_mask(const Model& model, const std::string& text, int top_k, const Capture& capture,
                   const Interventions& interventions = {});

}  // namespace attnscope::bert
