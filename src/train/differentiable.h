#pragma once
// The gradient pass (model/differentiable.h) of a model file of any family that has one: the
// family is the one the registry (model/registry.h) holds under the file's config "architecture".
#include <cstddef>
#include <cstdint>
#include <memory>

#include "model/differentiable.h"

namespace attnscope::train {

// ModelFileError on a broken file, InputError on a family without one.
std::unique_ptr<Differentiable> differentiable_from_bytes(const std::uint8_t* data, std::size_t size);

}  // namespace attnscope::train
