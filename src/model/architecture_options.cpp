#include "model/architecture_options.h"

#include "core/json.h"

#include "core/error.h"

namespace attnscope::train {

using json = nlohmann::json;

double option_number(const json& v, const std::string& key) {
  if (!v.is_number()) throw InputError("training option '" + key + "' must be a number, got " + json_excerpt(v));
  return v.get<double>();
}

long long option_integer(const json& v, const std::string& key, long long max) {
  const double x = option_number(v, key);
  // Range first: casting a double outside long long's range is undefined behaviour.
  if (!(x >= 0 && x <= static_cast<double>(max)) || x != static_cast<double>(static_cast<long long>(x)))
    throw InputError("training option '" + key + "' must be an integer in [0, " + std::to_string(max) + "], got " +
                     json_excerpt(v));
  return static_cast<long long>(x);
}

bool option_boolean(const json& v, const std::string& key) {
  if (!v.is_boolean()) throw InputError("training option '" + key + "' must be true or false, got " + json_excerpt(v));
  return v.get<bool>();
}

std::string option_string(const json& v, const std::string& key) {
  if (!v.is_string()) throw InputError("training option '" + key + "' must be a string, got " + json_excerpt(v));
  return v.get<std::string>();
}

void check_architecture_option(const ArchitectureOption& option, const json& v) {
  switch (option.kind) {
    case ArchitectureOption::Kind::Integer: option_integer(v, option.name, kMaxOptionInteger); break;
    case ArchitectureOption::Kind::Text: option_string(v, option.name); break;
    case ArchitectureOption::Kind::Boolean: option_boolean(v, option.name); break;
  }
}

void read_option(const json& options, const char* name, int& out) {
  if (options.contains(name)) out = static_cast<int>(option_integer(options.at(name), name, kMaxOptionInteger));
}

void read_option(const json& options, const char* name, std::string& out) {
  if (options.contains(name)) out = option_string(options.at(name), name);
}

void read_option(const json& options, const char* name, bool& out) {
  if (options.contains(name)) out = option_boolean(options.at(name), name);
}

void check_heads_share_width(int d_model, int heads) {
  if (heads >= 1 && d_model % heads != 0)
    throw InputError("dModel " + std::to_string(d_model) + " must be divisible by heads " + std::to_string(heads));
}

}  // namespace attnscope::train
