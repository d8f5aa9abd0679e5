#pragma once
// Breaking the model on purpose: replace attention weights, switch heads off, drop whole
// sub-layers. Interventions compose with every decoding strategy and with step/back/force;
// an empty Interventions gives exactly the unmodified model.
//
// Attention patterns (per head, over the K positions it attends to):
//   uniform    1/K each
//   beginning  the first three positions 0.5, 0.25, 0.15; the other K-3 share 0.1
//              (K <= 3: the first K of those, renormalised)
//   end        everything on the last position (for decoder self-attention: the current token)
//   custom     a user-given matrix of non-negative weights, one row of K per query position,
//              each normalised to sum to 1; queries past the last row use the last row, so a
//              single row gives every query the same weights (encoder and cross attention only)
// Skips: a skipped sub-layer still runs (its attention stays observable) but adds nothing to
// the residual stream; skipping LayerNorm makes every LayerNorm the identity.
#include <string>
#include <vector>

#include "layers/edits.h"
#include "model/sites.h"

namespace attnscope {

// Sites are named as in the model's site table (model/sites.h); resolved() checks the names.
struct AttentionOverride {
  std::string site;  // empty: the model's attention from the target to the source
  int layer = -1;  // -1: every layer
  int head = -1;   // -1: every head
  HeadEdit::Pattern pattern = HeadEdit::Pattern::Uniform;
  std::vector<std::vector<float>> custom;  // rows, one per query position (see HeadEdit)
};

struct HeadMask {
  std::string site;  // empty: as for AttentionOverride
  int layer = 0, head = 0;
};

struct Interventions {
  std::vector<AttentionOverride> attention;
  std::vector<HeadMask> masked_heads;
  bool skip_encoder_self_attention = false;
  bool skip_decoder_self_attention = false;
  bool skip_cross_attention = false;  // "no attention": the decoder never sees the source
  bool skip_ffn = false;
  bool skip_layer_norm = false;
  // The decoder gets the source encoding copied in instead of attending to it: every cross-
  // attention sub-layer outputs the mean of the encoder output (the fixed sentence vector of a
  // pre-attention encoder-decoder, Sutskever et al. 2014), for every target position.
  bool copy_source_encoding = false;
  // "Last state only": the decoder is given the encoder's final state instead of a context (the
  // seed's pre-attention picture, Cho et al. 2014). Only a family with one final encoder state
  // (the RNN) applies it; the others refuse it with an InputError.
  bool last_source_state = false;

  bool empty() const;
  // A copy whose every site is a name of `sites` (an empty name becomes the default site).
  // Throws InputError for an unknown site, IndexError for a layer or head it does not have.
  Interventions resolved(const SiteTable& sites) const;
  // What the sub-layer of site `site` (a resolved name) in layer `layer` does differently;
  // `skip` is the family's skip flag for that sub-layer.
  AttentionEdits attention_edits(const std::string& site, int layer, bool skip, int n_heads) const;
};

// Which model-wide interventions a family applies: each it refuses, by its option name (the
// names of the decoding options' JSON: "maskHeads", the skip names "encoderSelfAttention",
// "decoderSelfAttention", "crossAttention", "ffn", "layerNorm", and "copySourceEncoding",
// "lastSourceState"), with why. Every family keeps one such table, its encode() checks
// interventions against it, and the model's info publishes it so that a front end offers only
// what applies.
struct InterventionSupport {
  struct Refusal {
    std::string option, reason;
  };
  std::vector<Refusal> refused;

  bool refuses(const std::string& option) const;
  // Throws InputError with the reason of the first refused option `iv` uses.
  void check(const Interventions& iv) const;
};

HeadEdit::Pattern parse_attention_pattern(const std::string& name);  // "uniform" | "beginning" | "end" | "custom"

}  // namespace attnscope
