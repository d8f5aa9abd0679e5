#include "train/differentiable.h"

#include <string>

#include "core/error.h"
#include "io/byte_source.h"
#include "model/registry.h"

namespace attnscope::train {

std::unique_ptr<Differentiable> differentiable_for(std::shared_ptr<const Model> model) {
  const std::string& architecture = model->config.architecture;
  const FamilyRegistration* family = find_family(architecture);
  if (!family || !family->differentiable)
    throw InputError("models of architecture '" + architecture + "' have no gradient pass");
  return family->differentiable(std::move(model));
}

std::unique_ptr<Differentiable> differentiable_from_bytes(const std::uint8_t* data, std::size_t size) {
  // throws ModelFileError on anything wrong
  return differentiable_for(Model::load(std::make_shared<MemoryBytes>(data, size), Model::LoadOptions{}));
}

}  // namespace attnscope::train
