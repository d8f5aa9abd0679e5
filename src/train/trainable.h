#pragma once
// A model file of any family that trains, as the seam's Trainable (model/trainable.h): the family
// is the one the registry (model/registry.h) holds under the file's config "architecture".
#include <cstddef>
#include <cstdint>
#include <memory>

#include "model/trainable.h"

namespace attnscope::train {

// ModelFileError on a broken file; InputError on a family that does not train.
std::unique_ptr<Trainable> trainable_from_bytes_any(const std::uint8_t* data, std::size_t size);

}  // namespace attnscope::train
