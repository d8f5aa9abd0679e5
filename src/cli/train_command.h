#pragma once
// attnscope-cli train: train a transformer on sentence pairs and write the model file.
namespace attnscope::cli {
// argv[1] == "train". Returns the exit status (0 ok, 2 bad usage or input, 3 not all pairs exact).
int train_main(int argc, char** argv);
extern const char* kTrainUsage;
}  // namespace attnscope::cli
