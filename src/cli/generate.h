#pragma once
// attnscope-cli generate: `translate`'s options and JSON for a decoder-only language model, whose
// "source" is the prompt it continues. What differs from translate is written here.
#include <string>

#include "model/model.h"

namespace attnscope::cli {

// Throws Error when `command` ("translate" or "generate") does not fit the model's family.
void check_command_fits_model(const std::string& command, const Model& model);

}  // namespace attnscope::cli
