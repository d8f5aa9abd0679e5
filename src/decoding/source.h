#pragma once
#include <string>
#include <vector>

#include "model/model.h"

namespace attnscope {

struct Source {
  std::vector<std::string> pieces;  // as fed to the encoder, including </s> when the model appends it
  std::vector<int> ids;
  std::vector<std::string> unknown;  // pieces that became <unk>
};

// Tokenises a sentence for the encoder. Throws InputError for an empty sentence or one
// longer than the model's positions (we refuse rather than silently truncate: a truncated
// translation would look right and be wrong).
Source prepare_source(const Model& model, const std::string& text);

}  // namespace attnscope
