#pragma once
// The gradient pass (model/differentiable.h) of a model of any family that has one: the family is
// the one the registry (model/registry.h) holds under the model's config "architecture".
#include <cstddef>
#include <cstdint>
#include <memory>

#include "model/differentiable.h"
#include "model/model.h"

namespace attnscope::train {

// The pass of a loaded model, its weights read from the source it was loaded from
// (Model::source): no second load. InputError for a model without a source (trained in memory,
// or loaded from bytes the caller keeps) or of a family without a pass.
std::unique_ptr<Differentiable> differentiable_for(std::shared_ptr<const Model> model);

// The pass of a model file's bytes (validated as Model::load_bytes does). ModelFileError on a
// broken file, InputError on a family without one.
std::unique_ptr<Differentiable> differentiable_from_bytes(const std::uint8_t* data, std::size_t size);

}  // namespace attnscope::train
