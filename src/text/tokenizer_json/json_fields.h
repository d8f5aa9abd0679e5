#pragma once
// Reading tokenizer.json's fields: each check names the field by its JSON path
// ("pre_tokenizer.pretokenizers[1].pattern"), and every failure is a ModelFileError.
#include <nlohmann/json.hpp>

#include "core/json.h"
#include <string>

namespace attnscope::tokenizer_json {

using json = nlohmann::json;

// "<path>.<key>" and "<path>[<i>]".
std::string member_path(const std::string& path, const char* key);
std::string element_path(const std::string& path, std::size_t i);

// Throws ModelFileError "tokenizer.json: <path> <what>".
[[noreturn]] void fail(const std::string& path, const std::string& what);

// `value` must be an object (a component); its "type" string, or fail.
const std::string& component_type(const json& value, const std::string& path);
// Fails: "<path> has type '<type>', which is not supported (supported: <supported>)".
[[noreturn]] void unsupported(const std::string& type, const std::string& path, const char* supported);

// Optional fields: `fallback` when absent or null; the wrong type fails naming the field.
bool flag(const json& object, const char* key, const std::string& path, bool fallback);
std::string text(const json& object, const char* key, const std::string& path, const std::string& fallback);
long long integer(const json& object, const char* key, const std::string& path, long long fallback, long long min,
                  long long max);
// Required fields.
const json& required(const json& object, const char* key, const std::string& path);
std::string required_text(const json& object, const char* key, const std::string& path);
const json& required_array(const json& object, const char* key, const std::string& path);
// One code point of a string field (Metaspace's replacement, Strip's content).
char32_t character(const json& object, const char* key, const std::string& path, char32_t fallback);

// A Sequence's components: `make(item, path)` of each item of the array `key` (nulls left out).
template <class T, class Make>
std::vector<std::unique_ptr<T>> components(const json& object, const char* key, const std::string& path, Make make) {
  const std::string list = member_path(path, key);
  const json& items = required_array(object, key, path);
  std::vector<std::unique_ptr<T>> out;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (auto c = make(items[i], element_path(list, i))) out.push_back(std::move(c));
  return out;
}

}  // namespace attnscope::tokenizer_json
