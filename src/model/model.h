#pragma once
// A loaded model, whatever its family: configuration, metadata, tokenizer, vocabularies, and
// the family object that holds the weights and runs the forward pass (model/family.h).
// Immutable after load, so one Model can serve any number of sessions at once.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/byte_source.h"
#include "model/config.h"
#include "model/family.h"
#include "model/generation.h"
#include "text/tokenizer.h"

namespace attnscope {

struct Model {
  ModelConfig config;
  std::map<std::string, std::string> metadata;  // everything in the file's __metadata__
  std::shared_ptr<const Tokenizer> tokenizer;      // the source side (and the target's without tgt_tokenizer)
  // Encodes target text (forced prefixes, references) and decodes the output: the metadata's
  // `tgt_tokenizer`, or the same object as `tokenizer` when the file has none.
  std::shared_ptr<const Tokenizer> tgt_tokenizer;
  GenerationDefaults generation;  // the metadata's `generation`; empty when absent
  Vocabulary src_vocab, tgt_vocab;
  // Loaded with LoadOptions::int8: the decoder-step products run on int8 weights.
  bool int8 = false;
  // Some of its weights are kept in binary16 (bfloat16): loaded with LoadOptions::binary16 from a
  // file that stores them as F16 (BF16). A binary32 file, or a model trained in memory, has none.
  bool binary16 = false;
  bool bfloat16 = false;
  std::unique_ptr<const ModelFamily> family;  // chosen by config.architecture

  const SiteTable& sites() const { return family->sites(); }
  // The family's decoder; throws Error for an encoder-only model.
  const Decoder& decoder() const;

  // How to hold the weights once loaded.
  struct LoadOptions {
    // The decoder-step products (self- and cross-attention projections but the cross K/V, FFN,
    // output projection) on int8 weights (ops/gemm_int8.h): about twice as fast per token in
    // WASM, no longer the file's exact numbers. The encoder stays exact.
    bool int8 = false;
    // Keep the weights of a file stored as F16 in binary16, and of one stored as BF16 in
    // bfloat16, as the file holds them (the products read them directly, with the same results
    // bit for bit): half the memory of binary32. Off (CLI --f32): expanded to binary32, for
    // timing the two against each other; binary32 was 10-20 % faster per token natively on a
    // model whose weights fit the caches.
    bool binary16 = true;
  };

  // Load and validate a model file (models/FORMAT.md). Throw ModelFileError saying what is wrong.
  // Each tensor is read from its source straight into the memory that keeps it: the file is
  // never held whole, and nothing keeps it once the load returns: training and attribution run
  // on the loaded weights.
  static std::shared_ptr<const Model> load(std::shared_ptr<const ByteSource> source, const LoadOptions& options);
  static std::shared_ptr<const Model> load_file(const std::string& path, const LoadOptions& options);
  static std::shared_ptr<const Model> load_bytes(const std::uint8_t* data, std::size_t size, const LoadOptions& options);
  static std::shared_ptr<const Model> load_file(const std::string& path) { return load_file(path, LoadOptions{}); }
  static std::shared_ptr<const Model> load_bytes(const std::uint8_t* data, std::size_t size) {
    return load_bytes(data, size, LoadOptions{});
  }
};

// Sinusoidal position encodings (Vaswani et al. 2017, §3.5): [positions, d].
Matrix sinusoidal_positions(int positions, int d);
// The same angles laid out in halves (Marian, as Hugging Face's MarianSinusoidalPositionalEmbedding):
// PE[p, i] = sin(p·ω_i), PE[p, d/2 + i] = cos(p·ω_i), ω_i = 10000^(−2i/d), i < d/2; d even.
Matrix sinusoidal_halves_positions(int positions, int d);

}  // namespace attnscope
