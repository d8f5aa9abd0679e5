#pragma once
// A family's trainable tensors as one flat list, in model-file order: what the optimiser, the
// clipping and the export walk over whatever the family (TransformerParams::tensors(),
// RnnParams::tensors()). Gradients and Adam's moments have the same layout as the parameters.
#include <string>
#include <vector>

#include "core/tensor.h"

namespace attnscope::train {

struct NamedTensor {
  std::string name;  // the model file's tensor name
  Matrix* tensor;    // owned by the parameter struct
  bool vector;       // a 1-D tensor in the file, held as a [1, n] Matrix here
};
using TensorList = std::vector<NamedTensor>;

}  // namespace attnscope::train
