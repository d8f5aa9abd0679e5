#include "train/differentiable.h"

#include <string>

#include "core/error.h"
#include "model/model_file_writer.h"
#include "model/registry.h"

namespace attnscope::train {

std::unique_ptr<Differentiable> differentiable_from_bytes(const std::uint8_t* data, std::size_t size) {
  const std::string architecture = architecture_of(data, size);
  const FamilyRegistration* family = find_family(architecture);
  if (!family || !family->differentiable)
    throw InputError("models of architecture '" + architecture + "' have no gradient pass");
  return family->differentiable(data, size);
}

}  // namespace attnscope::train
