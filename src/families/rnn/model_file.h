#pragma once
// RNN parameters <-> model files (models/FORMAT.md "The RNN family"), as the transformer's
// (families/transformer/model_file.h): start from a file's bytes or from fresh weights, export
// .safetensors bytes.
#include <cstdint>
#include <vector>

#include "families/rnn/train_params.h"
#include "io/safetensors.h"
#include "model/model.h"
#include "model/model_file_writer.h"

namespace attnscope::train {

struct TrainableRnn {
  RnnParams params;  // params.shared.family_json: the `config` metadata value, written back verbatim
  ModelText text;
};

// Validates the bytes with Model::load_bytes, then reads every tensor as float32.
TrainableRnn trainable_rnn_from_bytes(const std::uint8_t* data, std::size_t size);
// The same for `model`, loaded from `file`.
TrainableRnn trainable_rnn_from(const SafetensorsFile& file, const Model& model);

// The `config` metadata value of an RNN, in models/reference/attnscope_ref/rnn.py's CONFIG_FIELDS order
// (json.dumps of complete_config, as export.py writes it).
std::string rnn_config_json(const rnn::Config& config, const ModelConfig& shared);

// Fresh weights from train::Random(seed), tensor by tensor in file order: embeddings
// N(0, E^-1/2); the cells' tensors U(±1/sqrt(hidden)) (PyTorch's nn.GRU/nn.LSTM default);
// every other matrix xavier-uniform, the bridge's and output's biases U(±1/sqrt(fan_in)).
RnnParams fresh_rnn_params(const ModelConfig& shared, int src_vocab_size, int tgt_vocab_size, std::uint64_t seed);

std::vector<std::uint8_t> export_safetensors(TrainableRnn& model);

}  // namespace attnscope::train
