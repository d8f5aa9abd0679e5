#pragma once
// Training options from a JSON object with the JavaScript API's camelCase names (the CLI's
// flags, web/attnscope.js `createTrainer`), e.g.
//   {"layers": 1, "heads": 1, "dModel": 64, "dFf": 128, "seed": 1, "lr": 0.001, "batchTokens": 24,
//    "labelSmoothing": 0, "dropout": 0, "clipNorm": 0, "warmup": 0}
// Unknown names and wrong types are InputErrors, so a typo never passes silently. Ranges are
// checked where they are used (fresh_model, Trainer); the browser's size limits live in JS.
#include <string>

#include "train/trainer.h"

namespace attnscope::train {

struct TrainSetup {
  Architecture architecture;  // used only for a fresh model
  bool has_architecture = false;  // any of layers, heads, dModel, dFf was given
  TrainOptions options;
};

TrainSetup train_setup_from_json(const std::string& text);

}  // namespace attnscope::train
