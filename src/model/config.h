#pragma once
// The architecture hyper-parameters stored in a model file's metadata (models/FORMAT.md).
#include <string>
#include <vector>

#include "core/architecture.h"

namespace attnscope {

// Sinusoidal: Vaswani's interleaved sin/cos; SinusoidalHalves: sin in the first half of the
// columns, cos in the second (Marian's, as Hugging Face writes it).
enum class Positions { Sinusoidal, Learned, SinusoidalHalves };

struct SpecialTokens {
  int pad = 0, unk = 1, bos = 2, eos = 3;
};

struct ModelConfig {
  // The model family (models/FORMAT.md): picks the loader and the forward pass. Absent from
  // a file: "transformer".
  std::string architecture = "transformer";
  // For every other family: the file's config object as written, which that family parses
  // itself (its own fields); the transformer fields below then stay 0 and only the fields
  // every family shares (max_positions, shared_embeddings, src_append_eos, special) are read
  // here. Empty for the transformer.
  std::string family_json;
  int d_model = 0;
  int n_heads = 0;
  int d_ff = 0;
  int n_encoder_layers = 0;
  int n_decoder_layers = 0;
  Activation activation = Activation::ReLU;
  NormPosition norm = NormPosition::Post;
  Positions positions = Positions::Sinusoidal;
  int max_positions = 0;
  double embedding_scale = 1.0;  // as written in the file; applied in float32
  bool shared_embeddings = false;
  bool tied_output = false;
  double layer_norm_eps = 1e-5;
  bool src_append_eos = true;
  SpecialTokens special;
  // Target ids the decoder never chooses (a Ban rule of every strategy; src/decoding/README.md).
  // Marian: its pad, which is also its decoder start. Checked against tgt_vocab by the loader.
  std::vector<int> suppress_tokens;

  int d_head() const { return d_model / n_heads; }

  // Parses the `config` metadata JSON; throws ModelFileError naming the bad field. For a
  // family other than the transformer, only the shared fields (see family_json).
  static ModelConfig from_json(const std::string& text);
  std::string to_json() const;
};

}  // namespace attnscope
