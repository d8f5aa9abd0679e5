#pragma once
// Training options from a JSON object with the JavaScript API's camelCase names (the CLI's
// flags, web/attnscope.js `createTrainer`), e.g.
//   {"layers": 1, "heads": 1, "dModel": 64, "dFf": 128, "seed": 1, "lr": 0.001, "batchTokens": 24,
//    "labelSmoothing": 0, "dropout": 0, "clipNorm": 0, "warmup": 0}
// or, for a fresh RNN ("family": "rnn"; RnnArchitecture's fields):
//   {"family": "rnn", "cell": "gru", "attention": "bahdanau", "score": "additive", "layers": 1,
//    "dEmbed": 32, "dHidden": 64, "dEncoder": 0, "dAttention": 0, "bidirectional": true,
//    "inputFeeding": false, "localWindow": 0, ...the training options above}
// Unknown names and wrong types are InputErrors, so a typo never passes silently. Ranges are
// checked where they are used (fresh_model, Trainer); the browser's size limits live in JS.
#include <string>

#include "train/trainer.h"

namespace attnscope::train {

struct TrainSetup {
  std::string family = "transformer";  // of a fresh model
  Architecture architecture;  // used only for a fresh transformer
  RnnArchitecture rnn;        // used only for a fresh RNN
  bool has_architecture = false;  // any architecture field (or family) was given
  TrainOptions options;
};

TrainSetup train_setup_from_json(const std::string& text);

}  // namespace attnscope::train
