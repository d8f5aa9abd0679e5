#pragma once
// The seam between a decoding session and a model family (after CTranslate2's Decoder /
// DecoderState and make_encoder / make_decoder, kept small). A family encodes a source into a
// memory; its decoder starts one state per hypothesis and steps a batch of states to logits
// and a trace; a state can be copied (a beam keeps two children of one hypothesis) and
// truncated (back()). An encoder-only family has no decoder. Each family lives in its own
// folder under src/families/ and registers itself in src/families/registry.cpp.
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "layers/attention.h"
#include "model/architecture_description.h"
#include "model/interventions.h"
#include "model/sites.h"
#include "model/trace.h"

namespace attnscope {

class EncoderOnly;  // model/encoder_only.h
struct Model;       // model/model.h

// Everything a decoder carries from one step to the next for one hypothesis.
class DecoderState {
 public:
  virtual ~DecoderState() = default;
  virtual std::unique_ptr<DecoderState> clone() const = 0;
  virtual int length() const = 0;         // target positions fed so far
  virtual void truncate(int length) = 0;  // forget every position from `length` on
};

class Decoder {
 public:
  virtual ~Decoder() = default;
  // A state that has fed nothing yet, attending to `memory` (what the encoder returned).
  virtual std::unique_ptr<DecoderState> start(const Matrix& memory) const = 0;
  // Feeds tokens[i] to states[i] at its next position and returns the logits [n, V], row i for
  // hypothesis i; traces[i] (may be null) receives what `capture` asks for. A batch gives each
  // row the bits a batch of one would. Throws IndexError for a bad token id and InputError past
  // the model's positions.
  virtual Matrix step(const std::vector<DecoderState*>& states, const std::vector<int>& tokens, const Capture& capture,
                      const std::vector<StepTrace*>& traces, const Interventions& interventions) const = 0;

  // The logit lens (nostalgebraist 2020): the decoder layers whose residual stream can be read
  // out, 0 where there is no such stream (a family without layers). A step that captures
  // vectors records layer l's output as "layers.<l>.output" (one row per position it fed).
  virtual int lens_layers() const { return 0; }
  // What the step's readout (final norm where the model has one, output projection, output
  // bias) makes of residual-stream rows [n, d]: logits [n, V]. The step's own logits are this of
  // its last layer's output. Throws InputError where lens_layers() is 0.
  virtual Matrix readout(const Matrix& residual, const Interventions& interventions) const {
    (void)residual, (void)interventions;
    throw InputError("this model has no logit lens: its decoder has no residual stream of layers to read out");
  }

 protected:
  // For step(): throws Error unless there is one token and one trace per state.
  static void check_batch(std::size_t states, std::size_t tokens, std::size_t traces) {
    if (tokens != states || traces != states)
      throw Error("decoder step: " + std::to_string(states) + " states, " + std::to_string(tokens) + " tokens, " +
                  std::to_string(traces) + " traces");
  }
  // step() of each hypothesis alone, the rows stacked: a batch a family cannot run at once.
  Matrix step_each(const std::vector<DecoderState*>& states, const std::vector<int>& tokens, const Capture& capture,
                   const std::vector<StepTrace*>& traces, const Interventions& interventions) const {
    Matrix logits;
    for (std::size_t i = 0; i < states.size(); ++i) {
      const Matrix row = step({states[i]}, {tokens[i]}, capture, {traces[i]}, interventions);
      if (i == 0) logits.resize(static_cast<Eigen::Index>(states.size()), row.cols());
      logits.row(static_cast<Eigen::Index>(i)) = row;
    }
    return logits;
  }
};

class ModelFamily {
 public:
  virtual ~ModelFamily() = default;

  // The attention sites this model has, in the order traces list them.
  virtual const SiteTable& sites() const = 0;

  // Encodes source ids into the memory a decoder (or a task head) reads, [source length, d].
  // `trace` may be null; otherwise it receives what `capture` asks for.
  virtual Matrix encode(const std::vector<int>& source_ids, const Capture& capture, EncoderTrace* trace,
                        const Interventions& interventions) const = 0;

  // Null for an encoder-only family.
  virtual const Decoder* decoder() const = 0;

  // What an encoder-only family is asked (model/encoder_only.h: its input, its masked-LM head);
  // null for a family without it.
  virtual const EncoderOnly* encoder_only() const { return nullptr; }

  // What the text a session starts from is: a source the encoder reads, a prompt whose tokens
  // open the decoder's own context (no encoder), or a text an encoder-only model encodes. A
  // prompt's ids are the context's first positions as they are (<bos> first where
  // prepare_source, decoding/source.h, put one): the first step runs them all, and the token fed
  // with it (the session's <bos>, as for every decoder) is not read.
  enum class Input { Source, Prompt, Text };
  virtual Input input() const { return decoder() ? Input::Source : Input::Text; }

  // The most tokens a session may generate from `source_length` source tokens in a model of
  // `max_positions` positions: the target side's own positions (<bos> takes one) by default; a
  // family whose context also holds the source leaves what that takes.
  virtual int generation_room(int max_positions, int source_length) const {
    (void)source_length;
    return max_positions - 1;
  }

  // For the embedding views: the token embeddings of one side, [V, d] (empty where the family
  // has none), and the positions the encoder adds, [max positions, d] (empty if none). The table
  // is the one the model holds, in the form it keeps (ops/weight_matrix.h): a reader converts
  // the rows it needs (row, middle_rows), not the whole table.
  virtual const ops::WeightMatrix& token_embeddings(Side side) const = 0;
  virtual const Matrix& positional_encoding() const = 0;
  // For circuit analyses (analysis/induction.h): the unembedding W_U, [V, d], whose row v turns
  // the last hidden state into token v's logit (the tied embeddings or the output projection, as
  // the decoder's steps hold it); empty where the family does not publish one.
  virtual const ops::WeightMatrix& output_embeddings() const {
    static const ops::WeightMatrix none;
    return none;
  }

  // The model-wide interventions it refuses, and why (model/interventions.h); encode() and the
  // decoder's steps throw InputError for them.
  virtual const InterventionSupport& intervention_support() const = 0;

  // For analyses that look inside scaled dot-product attention: layer `layer` of site `site`,
  // or null where that site is not q·kᵀ attention.
  virtual const MultiHeadAttention* attention_layer(int site, int layer) const = 0;

  // The architecture in words and as a diagram (model/architecture_description.h), for readers
  // that show a model without knowing its family. `model` is the one holding this family (its
  // vocabularies and tokenizer). By default the site table's: a block per site.
  virtual ArchitectureDescription describe(const Model& model) const;
};

}  // namespace attnscope
