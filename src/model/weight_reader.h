#pragma once
// Reads a family's tensors out of a validated safetensors container, checking each one's
// shape and values, so that a wrong file fails at load, with a name, rather than later
// inside a matmul.
#include <set>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "layers/attention.h"
#include "layers/basic.h"
#include "layers/feed_forward.h"

namespace attnscope {

class WeightReader {
 public:
  // `binary16`: keep the weights of tensors the file stores in 16 bits in their format, F16 as
  // binary16 and BF16 as bfloat16 (the load option).
  WeightReader(const SafetensorsFile& file, bool binary16) : file_(file), binary16_(binary16) {}

  Matrix matrix(const std::string& name, int rows, int cols);
  RowVector vector(const std::string& name, int size);
  // A layer's weight [rows, cols], held once in the form the load keeps: packed in the 16-bit
  // format held_format(name) gives, else the plain binary32 matrix.
  ops::WeightMatrix weight_matrix(const std::string& name, int rows, int cols);
  // A token embedding table [vocabulary, d], as weight_matrix(); packed where `step_output`: the
  // table is also the tied output projection a decoder step multiplies by, and the step kernel
  // reads the packed layout. Lookups convert only the rows they read.
  ops::WeightMatrix embedding_table(const std::string& name, int rows, int cols, bool step_output);
  Linear linear(const std::string& name, int out, int in);
  LayerNorm layer_norm(const std::string& name, int d, float eps);
  MultiHeadAttention attention(const std::string& name, int d, int n_heads);
  FeedForward ffn(const std::string& name, int d, int d_ff, Activation activation);

  // The 16-bit format this tensor's weights are kept in: the file's own (F16: binary16, BF16:
  // bfloat16, whose values the format holds exactly) when the load option asks for it, else None.
  ops::simd::HalfFormat held_format(const std::string& name) const;

  // Every tensor in the file must have been asked for: a stray one means the file was made
  // for a different architecture than its config describes.
  void check_all_used() const;

  // A table a family computes from its config instead of reading it (sinusoidal positions)
  // may take `bytes` only if that is in proportion to the file: the config's sizes are the
  // file's claim, and a 1 MB file must not make the engine allocate a gigabyte. Families call
  // it after reading their tensors, whose shapes already tie the config's sizes to the file.
  void check_derived(const std::string& what, std::size_t bytes) const;

 private:
  // Checks that the tensor exists with this shape. Called before the matrix that receives it
  // is allocated: a config's sizes are believed only once the file holds a tensor that big.
  void check_shape(const std::string& name, const std::vector<int>& shape) const;
  // Reads the checked tensor into `out` (its shape's product of floats) and checks its values.
  void load(const std::string& name, float* out);
  // Refuses a NaN or Inf among `n` values of tensor `name` read from its flat index `first`.
  static void check_finite(const std::string& name, const float* values, std::size_t n, std::size_t first);
  // The same for a tensor's 16-bit values.
  static void check_finite_halves(const std::string& name, const std::vector<std::uint16_t>& halves,
                                  ops::simd::HalfFormat format);

  const SafetensorsFile& file_;
  std::set<std::string> used_;
  bool binary16_ = false;
};

}  // namespace attnscope
