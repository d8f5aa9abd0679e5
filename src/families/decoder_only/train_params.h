#pragma once
// The trainable parameters of the decoder-only family (src/families/decoder_only/, models/FORMAT.md
// "The decoder-only family"): its inference weights (decoder_only.h), with the model file's
// tensor names; gradients and Adam's moments have the same layout. A layer's FFN is empty when
// d_ff = 0 (attention only).
#include <vector>

#include "core/tensor_list.h"
#include "families/decoder_only/decoder_only.h"
#include "layers/params.h"
#include "model/config.h"

namespace attnscope::train {

struct DecoderOnlyParams {
  ModelConfig shared;  // max_positions, special tokens; family_json: the config as the file holds it
  decoder_only::Config config;
  int vocab_size = 0;
  // Every weight in the plain binary32 layout training updates in place: output_weight_ empty
  // when tied; positions the learned table or the computed sinusoids.
  decoder_only::Weights weights;

  // All zeros, every tensor in its file shape (exactly the tensors the loader reads). Throws
  // ModelFileError on a config the family refuses.
  static DecoderOnlyParams zeros(const ModelConfig& shared, int vocab_size);
  DecoderOnlyParams zeros_like() const { return zeros(shared, vocab_size); }
  TensorList tensors();  // sorted by name (the file's order)
  void set_zero();
};

// The values one layer holds (its FFN only where it has one).
std::size_t count_values(const decoder_only::Layer& layer);

}  // namespace attnscope::train
