// A decoder-only language model (GPT) as the page draws it: token and position embeddings, N
// layers of causal self-attention (and an FFN unless d_ff is 0), the output projection; no encoder.
#include "families/decoder_only/decoder_only.h"

namespace attnscope::decoder_only {

ArchitectureDescription DecoderOnly::describe(const Model& model) const {
  using description::plural;
  const Config& c = config_;
  const std::string d_model = std::to_string(c.d_model), max_positions = std::to_string(model_config_.max_positions);
  const std::string heads = plural(c.n_heads, "head");
  const std::string ffn =
      c.d_ff ? "FFN " + std::to_string(c.d_ff) + " (" + activation_name(c.activation) + ")" : "no FFN";
  const std::string positions = c.learned_positions ? "learned" : "sinusoidal";
  const std::string vocabulary = std::to_string(model.tgt_vocab.size()) + " " + description::vocabulary_unit(model);
  // What the context holds, as the model file's rule reads a prompt (decoding/source.h).
  const std::string context =
      (model_config_.prepend_bos ? model.tgt_vocab.token(model_config_.special.bos) + ", the prompt" : "the prompt") +
      std::string(" and the continuation");
  ArchitectureDescription d;
  d.family = "Decoder-only (GPT)";
  d.words = "Decoder-only language model (GPT): " + plural(c.n_layers, "layer") + ", " + heads + " each, d_model " +
            d_model + ", " + ffn + ", " + norm_name(c.norm) + "-LayerNorm, " + positions + " positions (" +
            max_positions + ": " + context + "), no encoder; vocabulary " + vocabulary + ".";
  d.blocks = {
      {"emb", "Decoder", "Token + position", "d_model " + d_model + ", " + positions + " positions (" + max_positions + ")"},
      {"dec", "Decoder", "Decoder layer × " + std::to_string(c.n_layers), "causal self-attention (" + heads + ") · " + ffn},
      {"out", "Decoder", "Linear + softmax", (c.tied_output ? "tied: " : "") + vocabulary},
  };
  return d;
}

}  // namespace attnscope::decoder_only
