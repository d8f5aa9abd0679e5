#pragma once
// Decoder-only parameters <-> model files (models/FORMAT.md "The decoder-only family"), as the
// transformer's (families/transformer/model_file.h): start from a file's bytes or from fresh
// weights, export .safetensors bytes that Model::load_bytes reads.
#include <cstdint>
#include <string>
#include <vector>

#include "families/decoder_only/train_params.h"
#include "io/safetensors.h"
#include "model/model.h"
#include "model/model_file_writer.h"

namespace attnscope::train {

struct TrainableDecoderOnly {
  DecoderOnlyParams params;  // params.shared.family_json: the `config` metadata value, written back verbatim
  ModelText text;            // src_vocab = tgt_vocab: the one vocabulary
};

// Validates the bytes with Model::load_bytes, then reads every tensor as float32.
TrainableDecoderOnly decoder_only_from_bytes(const std::uint8_t* data, std::size_t size);

// Fresh weights as models/train/train.py `train_lm` initialises them (GPT-2's): every matrix
// N(0, 0.02), LayerNorm weights 1, every other vector 0. Drawn from train::Random(seed), tensor
// by tensor in file order.
DecoderOnlyParams fresh_decoder_only_params(const ModelConfig& shared, int vocab_size, std::uint64_t seed);

std::vector<std::uint8_t> export_safetensors(TrainableDecoderOnly& model);

}  // namespace attnscope::train
