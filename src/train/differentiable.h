#pragma once
// The gradient pass (model/differentiable.h) of a model of any family that has one: the family is
// the one the registry (model/registry.h) holds under the model's config "architecture".
#include <cstddef>
#include <cstdint>
#include <memory>

#include "model/differentiable.h"
#include "model/model.h"

namespace attnscope::train {

// The pass of a loaded model, on its own weights: no second load, no second read of its file.
// InputError for a family without a pass.
std::unique_ptr<Differentiable> differentiable_for(std::shared_ptr<const Model> model);

// The pass of a model file's bytes (validated as Model::load does), which the caller keeps until
// this returns. ModelFileError on a broken file, InputError on a family without one.
std::unique_ptr<Differentiable> differentiable_from_bytes(const std::uint8_t* data, std::size_t size);

}  // namespace attnscope::train
