#pragma once
// The CLI's --logit-lens: the logit lens of a decode session (analysis/logit_lens.h) in --json,
// in the shape of the JS API's session.logitLens(k).
#include <nlohmann/json.hpp>

#include "analysis/logit_lens.h"

namespace attnscope::cli {

// {"layers": L, "steps": [{"id", "token", "layers": [{"top": [{"id", "piece", "p"}], "chosen": {"p", "rank"}}]}]}
nlohmann::json logit_lens_to_json(const LogitLens& lens);

}  // namespace attnscope::cli
