// The transformer (Vaswani et al. 2017) as the page draws it: embeddings and positions, N encoder
// layers (self-attention, FFN), M decoder layers (masked self-attention, cross-attention, FFN), the
// output projection.
#include "families/transformer/transformer.h"

namespace attnscope::transformer {

ArchitectureDescription Transformer::describe(const Model& model) const {
  using description::plural;
  const Config& c = config_;
  const std::string d_model = std::to_string(c.d_model), d_ff = std::to_string(c.d_ff);
  const std::string heads = plural(c.n_heads, "head");
  const std::string positions = std::string(positions_name(c.positions)) + " positions";
  ArchitectureDescription d;
  d.family = "Transformer encoder-decoder";
  d.words = "Transformer encoder-decoder: " + plural(c.n_encoder_layers, "encoder layer") + " and " +
            plural(c.n_decoder_layers, "decoder layer") + ", " + heads + " per attention, d_model " + d_model + ", FFN " +
            d_ff + " (" + activation_name(c.activation) + "), " + norm_name(c.norm) + "-LayerNorm, " + positions +
            "; " + description::vocabulary(model) + ".";
  d.blocks = {
      {"src", "Encoder", "Source embedding", "d_model " + d_model + " + " + positions},
      {"enc", "Encoder", "Encoder layer × " + std::to_string(c.n_encoder_layers),
       "self-attention (" + heads + ") · FFN " + d_ff},
      {"tgt", "Decoder", "Target embedding", "d_model " + d_model + " + " + positions},
      {"dec", "Decoder", "Decoder layer × " + std::to_string(c.n_decoder_layers),
       "masked self-attn · cross-attn (" + heads + ") · FFN " + d_ff},
      {"out", "Decoder", "Linear + softmax", std::to_string(model.tgt_vocab.size()) + " target tokens"},
  };
  d.links = {{"enc", "dec", "memory"}};
  return d;
}

}  // namespace attnscope::transformer
