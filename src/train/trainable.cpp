#include "train/trainable.h"

#include <string>

#include "core/error.h"
#include "model/registry.h"

namespace attnscope::train {

std::unique_ptr<Trainable> trainable_from_bytes_any(const std::uint8_t* data, std::size_t size) {
  const std::string architecture = architecture_of(data, size);
  const FamilyRegistration* family = find_family(architecture);
  if (!family || !family->training) throw InputError("models of architecture '" + architecture + "' cannot be trained");
  return family->training->from_bytes(data, size);
}

}  // namespace attnscope::train
