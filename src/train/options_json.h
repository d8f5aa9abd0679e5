#pragma once
// Training options from a JSON object with the JavaScript API's camelCase names (the CLI's
// flags, web/attnscope.js `createTrainer`), e.g.
//   {"layers": 1, "heads": 1, "dModel": 64, "dFf": 128, "seed": 1, "lr": 0.001, "batchTokens": 24,
//    "labelSmoothing": 0, "dropout": 0, "clipNorm": 0, "warmup": 0}
// or, for a fresh RNN ("family": "rnn"; RnnArchitecture's fields):
//   {"family": "rnn", "cell": "gru", "attention": "bahdanau", "score": "additive", "layers": 1,
//    "dEmbed": 32, "dHidden": 64, "dEncoder": 0, "dAttention": 0, "bidirectional": true,
//    "inputFeeding": false, "localWindow": 0, ...the training options above}
// or, for a fresh decoder-only language model ("family": "decoder_only"; DecoderOnlyArchitecture's
// fields; "dFf": 0 makes attention-only layers, absent 2 · dModel):
//   {"family": "decoder_only", "layers": 2, "heads": 1, "dModel": 64, "dFf": 0, "activation": "gelu_tanh",
//    "norm": "pre", "positions": "learned", "tiedOutput": true, ...the training options above}
// The architecture options are the families' own (model/registry.h: each family names its options
// and reads them in its folder); the rest are the trainer's. Unknown names, wrong types and an
// option of another family are InputErrors, so a typo never passes silently. Ranges are checked
// where they are used (the family's fresh model, Trainer); the browser's size limits live in JS.
#include <string>

#include "train/trainer.h"

namespace attnscope::train {

struct TrainSetup {
  std::string family;  // of a fresh model (the registry's first family that trains when not given)
  nlohmann::json architecture = nlohmann::json::object();  // the family's options given, for fresh_trainable
  bool has_architecture = false;  // any architecture field (or family) was given
  TrainOptions options;
};

TrainSetup train_setup_from_json(const std::string& text);

}  // namespace attnscope::train
