#include "cli/generate.h"

namespace attnscope::cli {

void check_command_fits_model(const std::string& command, const Model& model) {
  const bool language_model = model.family->input() == ModelFamily::Input::Prompt;
  if (command == "generate" && !language_model)
    throw Error("generate needs a decoder-only language model, not architecture '" + model.config.architecture +
                "': use translate");
  if (command == "translate" && language_model)
    throw Error("this is a decoder-only language model: it continues a prompt, use generate");
}

}  // namespace attnscope::cli
