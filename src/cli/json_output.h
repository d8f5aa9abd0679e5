#pragma once
// The CLI's --json view of a translation. Field names are part of the CLI's stable interface.
#include <nlohmann/json.hpp>

#include "decoding/greedy.h"

namespace attnscope::cli {

nlohmann::json tensor_to_json(const Tensor& t);  // nested arrays, one level per dimension
nlohmann::json translation_to_json(const Model& model, const Translation& t, int top_k);

}  // namespace attnscope::cli
