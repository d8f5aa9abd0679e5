#include "text/tokenizer_json/json_fields.h"

#include "core/error.h"
#include "core/json.h"
#include "core/quote.h"
#include "text/utf8.h"

namespace attnscope::tokenizer_json {

std::string member_path(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }

std::string element_path(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

void fail(const std::string& path, const std::string& what) {
  throw ModelFileError("tokenizer.json: " + path + " " + what);
}

const std::string& component_type(const json& value, const std::string& path) {
  if (!value.is_object()) fail(path, "must be an object or null, not " + json_excerpt(value));
  const auto it = value.find("type");
  if (it == value.end() || !it->is_string()) fail(path, "needs a string field 'type'");
  return it->get_ref<const std::string&>();
}

void unsupported(const std::string& type, const std::string& path, const char* supported) {
  fail(path, "has type " + quote(type) + ", which is not supported (supported: " + supported + ")");
}

namespace {

const json* optional(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

}  // namespace

bool flag(const json& object, const char* key, const std::string& path, bool fallback) {
  const json* v = optional(object, key);
  if (!v) return fallback;
  if (!v->is_boolean()) fail(member_path(path, key), "must be true or false, not " + json_excerpt(*v));
  return v->get<bool>();
}

std::string text(const json& object, const char* key, const std::string& path, const std::string& fallback) {
  const json* v = optional(object, key);
  if (!v) return fallback;
  if (!v->is_string()) fail(member_path(path, key), "must be a string, not " + json_excerpt(*v));
  return v->get<std::string>();
}

long long integer(const json& object, const char* key, const std::string& path, long long fallback, long long min,
                  long long max) {
  const json* v = optional(object, key);
  if (!v) return fallback;
  if (!v->is_number_integer() || v->get<long long>() < min || v->get<long long>() > max)
    fail(member_path(path, key), "must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                                     "], not " + json_excerpt(*v));
  return v->get<long long>();
}

const json& required(const json& object, const char* key, const std::string& path) {
  const auto it = object.find(key);
  if (it == object.end()) fail(path, std::string("needs a field '") + key + "'");
  return *it;
}

std::string required_text(const json& object, const char* key, const std::string& path) {
  const json& v = required(object, key, path);
  if (!v.is_string()) fail(member_path(path, key), "must be a string, not " + json_excerpt(v));
  return v.get<std::string>();
}

const json& required_array(const json& object, const char* key, const std::string& path) {
  const json& v = required(object, key, path);
  if (!v.is_array()) fail(member_path(path, key), "must be an array, not " + json_excerpt(v));
  return v;
}

char32_t character(const json& object, const char* key, const std::string& path, char32_t fallback) {
  if (!optional(object, key)) return fallback;
  const std::u32string s = decode_utf8(text(object, key, path, ""));
  if (s.size() != 1) fail(member_path(path, key), "must be one character");
  return s[0];
}

}  // namespace attnscope::tokenizer_json
