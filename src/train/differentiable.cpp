#include "train/differentiable.h"

#include <string>

#include "core/error.h"
#include "io/safetensors.h"
#include "model/registry.h"

namespace attnscope::train {
namespace {

std::unique_ptr<Differentiable> pass_of(std::shared_ptr<const Model> model, const SafetensorsFile& file) {
  const std::string& architecture = model->config.architecture;
  const FamilyRegistration* family = find_family(architecture);
  if (!family || !family->differentiable)
    throw InputError("models of architecture '" + architecture + "' have no gradient pass");
  return family->differentiable(std::move(model), file);
}

}  // namespace

std::unique_ptr<Differentiable> differentiable_for(std::shared_ptr<const Model> model) {
  if (!model->source)
    throw InputError("attribution needs a model loaded from a file (this one was trained here)");
  const SafetensorsFile file(model->source);
  return pass_of(std::move(model), file);
}

std::unique_ptr<Differentiable> differentiable_from_bytes(const std::uint8_t* data, std::size_t size) {
  auto model = Model::load_bytes(data, size);  // throws ModelFileError on anything wrong
  return pass_of(std::move(model), SafetensorsFile(data, size));
}

}  // namespace attnscope::train
