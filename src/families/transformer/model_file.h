#pragma once
// Transformer parameters <-> model files (models/FORMAT.md): start from a file's bytes or from
// fresh weights, and export .safetensors bytes as models/reference/attnscope_ref/export.py writes
// them, on model/model_file_writer.h's family-neutral half.
#include <cstdint>
#include <string>
#include <vector>

#include "families/transformer/train_params.h"
#include "io/safetensors.h"
#include "model/model.h"
#include "model/model_file_writer.h"

namespace attnscope::train {

struct TrainableModel {
  TransformerParams params;
  ModelText text;
};

// Validates the bytes with Model::load_bytes (the engine's own checks), then reads every tensor
// as float32 (F16 converted) into the parameters.
TrainableModel trainable_from_bytes(const std::uint8_t* data, std::size_t size);

// Fresh weights as models/train/train.py initialises them: every matrix xavier-uniform
// (U(±sqrt(6 / (fan_in + fan_out)))), then the token embeddings N(0, d^-1/2); linear biases
// U(±1/sqrt(fan_in)) (nn.Linear's default, which train.py keeps), output.bias 0, LayerNorm 1 and 0.
// Drawn from train::Random(seed), tensor by tensor in file order.
TransformerParams fresh_params(const ModelConfig& shared, const transformer::Config& config, int src_vocab_size,
                               int tgt_vocab_size, std::uint64_t seed);

// The model file's bytes, F32.
std::vector<std::uint8_t> export_safetensors(TransformerParams& params, const ModelText& text);

}  // namespace attnscope::train
