#pragma once
// A loaded model: configuration, vocabularies, tokenizer and weights. Immutable after load,
// so one Model can serve any number of sessions at once.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "layers/decoder_layer.h"
#include "layers/encoder_layer.h"
#include "model/config.h"
#include "text/tokenizer.h"

namespace attnscope {

struct Model {
  ModelConfig config;
  std::map<std::string, std::string> metadata;  // everything in the file's __metadata__
  std::shared_ptr<const Tokenizer> tokenizer;
  Vocabulary src_vocab, tgt_vocab;

  Matrix src_embed;                               // [V_src, d]
  Matrix encoder_positions, decoder_positions;    // [max_positions, d]: learned or sinusoidal
  std::vector<EncoderLayer> encoder_layers;
  std::vector<DecoderLayer> decoder_layers;
  LayerNorm encoder_final_norm, decoder_final_norm;  // used with pre-norm only
  RowVector output_bias;                          // [V_tgt]
  // output_weight() in its decoder-step forms (ops::StepWeights): the largest product of a step.
  ops::StepWeights output_step;
  // Loaded with LoadOptions::int8: the decoder-step products run on int8 weights.
  bool int8 = false;

  // Shared with src_embed / tgt_embed when the config says so, hence accessors.
  const Matrix& tgt_embed() const { return config.shared_embeddings ? src_embed : tgt_embed_; }
  const Matrix& output_weight() const { return config.tied_output ? tgt_embed() : output_weight_; }

  // How to hold the weights once loaded.
  struct LoadOptions {
    // The decoder-step products (self- and cross-attention projections but the cross K/V, FFN,
    // output projection) on int8 weights (ops/gemm_int8.h): about twice as fast per token in
    // WASM, no longer the file's exact numbers. The encoder stays exact.
    bool int8 = false;
  };

  // Load and validate a model file (models/FORMAT.md). Throw ModelFileError saying what is wrong.
  static std::shared_ptr<const Model> load_file(const std::string& path, const LoadOptions& options);
  static std::shared_ptr<const Model> load_bytes(const std::uint8_t* data, std::size_t size, const LoadOptions& options);
  static std::shared_ptr<const Model> load_file(const std::string& path) { return load_file(path, LoadOptions{}); }
  static std::shared_ptr<const Model> load_bytes(const std::uint8_t* data, std::size_t size) {
    return load_bytes(data, size, LoadOptions{});
  }

  Matrix tgt_embed_;       // empty when shared_embeddings
  Matrix output_weight_;   // empty when tied_output
};

// Sinusoidal position encodings (Vaswani et al. 2017, §3.5): [positions, d].
Matrix sinusoidal_positions(int positions, int d);

}  // namespace attnscope
