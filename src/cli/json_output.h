#pragma once
// The CLI's --json view of a decode session. Field names are part of the CLI's stable interface.
#include <nlohmann/json.hpp>

#include "decoding/session.h"

namespace attnscope::cli {

nlohmann::json tensor_to_json(const Tensor& t);  // nested arrays, one level per dimension
nlohmann::json session_to_json(const DecodeSession& session, bool with_tree);
nlohmann::json beam_tree_to_json(const DecodeSession& session);

// `j` as the CLI prints it (`indent` < 0: one line). Control characters are escaped as JSON
// escapes them; bytes that are not UTF-8 (a sentence read from a file may have them) become
// U+FFFD instead of an exception.
std::string json_text(const nlohmann::json& j, int indent = -1);

}  // namespace attnscope::cli
