// BERT (Devlin et al. 2019) as the page draws it: token + position + segment embeddings, N post-LN
// encoder layers (gelu), the masked-language-model head tied to the token embeddings; no decoder.
#include "families/bert/bert.h"

namespace attnscope::bert {

ArchitectureDescription Bert::describe(const Model& model) const {
  using description::plural;
  const Config& c = config_;
  const std::string d_model = std::to_string(c.d_model), d_ff = std::to_string(c.d_ff);
  const std::string positions = std::to_string(model_config_.max_positions);
  const std::string vocabulary = std::to_string(model.src_vocab.size());
  const std::string heads = plural(c.n_heads, "head"), segments = plural(c.n_segments, "segment");
  ArchitectureDescription d;
  d.family = "BERT encoder-only";
  d.words = "BERT encoder-only: " + plural(c.n_layers, "layer") + ", " + heads + " each, d_model " + d_model + ", FFN " +
            d_ff + " (" + std::string(activation_name(kActivation)) + "), post-LayerNorm, learned positions (" + positions + ") and " + segments +
            (c.pooler ? ", a pooler" : "") + ", a masked-language-model head; vocabulary " + vocabulary +
            " WordPiece pieces.";
  d.blocks = {
      {"src", "Encoder", "Token + position + segment", "d_model " + d_model + ", " + positions + " positions, LayerNorm"},
      {"enc", "Encoder", "Encoder layer × " + std::to_string(c.n_layers),
       "self-attention (" + heads + ") · FFN " + d_ff + " (" + activation_name(kActivation) + ")"},
      {"mlm", "Encoder", "MLM head", "transform + LayerNorm, tied decoder: " + vocabulary + " pieces"},
  };
  return d;
}

}  // namespace attnscope::bert
