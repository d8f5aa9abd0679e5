#pragma once
// The seam of an encoder-only family: what a model with no decoder is asked. Encode a text (one
// sentence, or a pair written "A [SEP] B") for its hidden states and attention, and fill its
// [MASK]s with its masked-language-model head. A family offers it through
// ModelFamily::encoder_only() (null for a family without it) and writes only how it reads a text
// and its head; encode_text, fill_mask, the head study (analysis/encoder_study.h) and attribution
// are built on it here and in analysis/, for every such family. Used by the CLI (fill-mask,
// bert-study) and the bindings; the views get tokens and tensors from here.
#include <string>
#include <vector>

#include "core/tensor.h"
#include "model/interventions.h"
#include "model/trace.h"

namespace attnscope {

struct Model;

// A text as the model reads it, with the special tokens its family adds ("[CLS] pieces [SEP]").
struct EncoderInput {
  std::vector<std::string> pieces;   // [T]
  std::vector<int> ids;              // [T]
  std::vector<int> segments;         // [T]: 0 up to the first [SEP], then 1
  std::vector<std::string> unknown;  // pieces of the text that became [UNK], in order
};

struct Encoding {
  EncoderInput input;
  Matrix hidden;          // final hidden states [T, d]
  EncoderTrace trace;     // attention ([site][layer][head][T][T]) and named vectors, as captured
  int self_site = 0;      // the row of trace.attention (and of the site table) of the self-attention
};

struct Candidate {
  int id = 0;
  std::string piece;
  float probability = 0.0f;  // softmax over the vocabulary at that position
  float logit = 0.0f;
};

struct MaskPrediction {
  int position = 0;            // index into EncoderInput::pieces
  std::vector<Candidate> top;  // best first, top_k of them
};

struct FillMask {
  Encoding encoding;
  std::vector<MaskPrediction> masks;  // one per [MASK], left to right
};

// What a family fills in; the hidden states are its ModelFamily::encode of EncoderInput::ids.
class EncoderOnly {
 public:
  virtual ~EncoderOnly() = default;
  // `text` as the model reads it. Throws InputError for a text with no pieces or longer than the
  // model's positions.
  virtual EncoderInput tokenize(const Model& model, const std::string& text) const = 0;
  // The masked-language-model head on hidden states [n, d]: logits [n, V].
  virtual Matrix mlm_logits(const Matrix& hidden) const = 0;
  // The id of the piece the head predicts ([MASK]).
  virtual int mask_id() const = 0;
  // The site table's row of the encoder's self-attention.
  virtual int self_attention_site() const = 0;
};

// The encoder-only side of `model`'s family; throws InputError naming the architecture when its
// family has none (an encoder-decoder or decoder-only model).
const EncoderOnly& encoder_only(const Model& model);

// Encodes `text`, capturing what `capture` asks for.
Encoding encode_text(const Model& model, const std::string& text, const Capture& capture,
                     const Interventions& interventions = {});

// The top_k pieces for every [MASK] of `text`. Throws InputError when the text has no [MASK] or
// top_k is outside [1, vocabulary size].
FillMask fill_mask(const Model& model, const std::string& text, int top_k, const Capture& capture,
                   const Interventions& interventions = {});

}  // namespace attnscope
