#pragma once
// The CLI's --json view of a decode session. Field names are part of the CLI's stable interface.
#include <nlohmann/json.hpp>

#include "decoding/session.h"

namespace attnscope::cli {

nlohmann::json tensor_to_json(const Tensor& t);  // nested arrays, one level per dimension
nlohmann::json session_to_json(const DecodeSession& session, bool with_tree);
nlohmann::json beam_tree_to_json(const DecodeSession& session);

}  // namespace attnscope::cli
