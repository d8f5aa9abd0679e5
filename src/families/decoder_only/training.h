#pragma once
// Training the decoder-only language model: a fresh model from its architecture options, and the
// seam's Trainable (model/trainable.h) on its parameters, backward pass and model file.
// `kTraining` is what the registry (families/registry.cpp) holds of it.
#include <cstdint>
#include <memory>
#include <string>

#include "families/decoder_only/model_file.h"
#include "model/registry.h"
#include "model/trainable.h"

namespace attnscope::train {

// A fresh word-level decoder-only language model (src/families/decoder_only/): one vocabulary
// (<pad> <unk> <s> </s> + the sorted words of both sides), each pair learned as
// "<s> source target </s>" (Trainable::example: the source is the prompt the target continues),
// max_positions = max(16, longest source + longest target + 2), embedding scale 1, LayerNorm eps
// 1e-5, weights as fresh_decoder_only_params. Throws InputError on a config the family refuses.
struct DecoderOnlyArchitecture {
  int layers = 1;
  int heads = 1;
  int d_model = 64;
  int d_ff = -1;                         // -1: 2 · d_model; 0: attention-only layers (no FFN)
  std::string activation = "gelu_tanh";  // relu | gelu | gelu_tanh
  std::string norm = "pre";              // pre | post
  std::string positions = "learned";     // learned | sinusoidal
  bool tied_output = true;
};
TrainableDecoderOnly fresh_decoder_only_model(const WordTextOf& words, const DecoderOnlyArchitecture& arch,
                                              std::uint64_t seed);

std::unique_ptr<Trainable> make_trainable(TrainableDecoderOnly model);

}  // namespace attnscope::train

namespace attnscope::decoder_only {

extern const FamilyTraining kTraining;

}  // namespace attnscope::decoder_only
