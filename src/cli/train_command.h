#pragma once
// attnscope-cli train: train a model on sentence pairs and write the model file.
#include <string>

namespace attnscope::cli {
// argv[1] == "train". Returns the exit status (0 ok, 2 bad usage or input, 3 not all pairs exact).
int train_main(int argc, char** argv);
// Its usage lines, each family that trains with its options (model/registry.h).
std::string train_usage();
}  // namespace attnscope::cli
