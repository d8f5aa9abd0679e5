#pragma once
// The values of training options as their JSON gives them (the JavaScript trainer's options, or
// attnscope-cli train's flags turned into them), checked with the same words wherever they are
// read: the trainer's own options (train/options_json.cpp) and each family's architecture options
// (families/<name>/training.cpp, named in model/registry.h).
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "model/registry.h"

namespace attnscope::train {

// The largest integer an architecture option or a count takes.
inline constexpr long long kMaxOptionInteger = 1'000'000'000;

// InputError "training option '<key>' must be ..., got <the value>" on a value of another kind.
double option_number(const nlohmann::json& v, const std::string& key);
long long option_integer(const nlohmann::json& v, const std::string& key, long long max);  // in [0, max]
bool option_boolean(const nlohmann::json& v, const std::string& key);
std::string option_string(const nlohmann::json& v, const std::string& key);

// A family's architecture option's value, checked for its kind as above.
void check_architecture_option(const ArchitectureOption& option, const nlohmann::json& v);

// `out` = options[name], checked as above, when `options` holds it (else `out` is left as it is).
void read_option(const nlohmann::json& options, const char* name, int& out);
void read_option(const nlohmann::json& options, const char* name, std::string& out);
void read_option(const nlohmann::json& options, const char* name, bool& out);

// InputError "dModel <d> must be divisible by heads <h>", in the options' own names (the JS trainer
// shows it), for the families whose width is split evenly over their heads. A count below 1 is
// left to the family's other checks.
void check_heads_share_width(int d_model, int heads);

}  // namespace attnscope::train
