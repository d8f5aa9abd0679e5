#include "core/json.h"

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/quote.h"

namespace attnscope {
namespace {

// nlohmann's messages quote the token they stopped at ("last read: '...'"), which a hostile
// text can make as long as itself: they are cut to this many bytes.
constexpr std::size_t kMaxParserMessageBytes = 200;

[[noreturn]] void fail(JsonSource source, const std::string& message) {
  if (source == JsonSource::ModelFile) throw ModelFileError(message);
  throw InputError(message);
}

// What one pass over the text finds before the parser runs: where arrays and objects first
// nest deeper than kMaxJsonDepth (npos: nowhere), and what its DOM would cost. Brackets, commas
// and quotes inside strings do not count. On text that is not JSON the counts may differ from
// the parser's view, but only past the first invalid byte, where the parser stops anyway.
struct Scan {
  std::size_t too_deep_at = std::string_view::npos;
  std::size_t too_long_at = std::string_view::npos;  // where an array first passes max_array_values
  std::size_t values = 0;      // an upper bound: one per comma, per array or object, plus one
  std::size_t cost_bytes = 0;  // the DOM's estimated size (see kMaxJsonCostPerByte)
};

Scan scan(std::string_view text, std::size_t max_array_values) {
  // nlohmann's costs: a value's slot in its growing array (16 bytes, up to 3 times that while
  // the array is reallocated); an array's or object's own vector or map; a string's
  // std::string, and its characters past the short-string buffer.
  constexpr std::size_t kSlot = 48, kContainer = 64, kString = 48, kShortString = 15;
  Scan s;
  int depth = 0;
  std::size_t containers = 0, commas = 0, strings = 0, long_chars = 0, string_start = 0;
  // Per open container up to kMaxJsonDepth: its values so far (an upper bound, as `values`),
  // or npos for an object.
  std::vector<std::size_t> open;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, a quote or a backslash, ends nothing
      } else if (c == '"') {
        in_string = false;
        if (i - string_start > kShortString) long_chars += i - string_start;
      }
    } else if (c == '"') {
      in_string = true;
      string_start = i + 1;
      ++strings;
    } else if (c == '[' || c == '{') {
      ++containers;
      if (++depth > kMaxJsonDepth && s.too_deep_at == std::string_view::npos) s.too_deep_at = i;
      if (depth <= kMaxJsonDepth) open.push_back(c == '[' ? 1 : std::string_view::npos);
    } else if ((c == ']' || c == '}') && depth > 0) {
      if (depth-- <= kMaxJsonDepth) open.pop_back();
    } else if (c == ',') {
      ++commas;
      if (!open.empty() && depth <= kMaxJsonDepth && open.back() != std::string_view::npos &&
          ++open.back() > max_array_values && s.too_long_at == std::string_view::npos)
        s.too_long_at = i;
    }
  }
  s.values = commas + containers + 1;
  s.cost_bytes = kSlot * s.values + kContainer * containers + kString * strings + long_chars;
  return s;
}

// Appends `v`'s JSON text to `out` until `out` holds `budget` bytes; recursion stops there too,
// so a deep value costs at most `budget` levels.
void append_excerpt(const nlohmann::json& v, std::string& out, std::size_t budget) {
  if (out.size() >= budget) return;
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    out += '"' + excerpt(s, budget - out.size()) + '"';
  } else if (v.is_array() || v.is_object()) {
    out += v.is_array() ? '[' : '{';
    bool first = true;
    for (auto it = v.begin(); it != v.end() && out.size() < budget; ++it, first = false) {
      if (!first) out += ',';
      if (v.is_object()) out += '"' + excerpt(it.key(), budget) + "\":";
      append_excerpt(it.value(), out, budget);
    }
    out += v.is_array() ? ']' : '}';
  } else {
    out += v.dump();  // a number, true, false or null: a few bytes
  }
}

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& what, JsonSource source, bool plural,
                          std::size_t max_array_values) {
  const Scan s = scan(text, max_array_values);
  if (s.too_deep_at != std::string_view::npos)
    fail(source, what + (plural ? " nest" : " nests") + " arrays and objects deeper than " +
                     std::to_string(kMaxJsonDepth) + " levels (at byte " + std::to_string(s.too_deep_at) + ")");
  if (s.too_long_at != std::string_view::npos)
    fail(source, what + (plural ? " hold" : " holds") + " an array of more than " + std::to_string(max_array_values) +
                     " values (at byte " + std::to_string(s.too_long_at) + ")");
  const std::size_t allowed = std::max(kJsonCostFloorBytes, kMaxJsonCostPerByte * text.size());
  if (s.cost_bytes > allowed)
    fail(source, what + (plural ? " hold" : " holds") + " too many values for " + (plural ? "their " : "its ") +
                     std::to_string(text.size()) + " bytes: parsing " + std::to_string(s.values) +
                     " values would take about " + std::to_string(s.cost_bytes) + " bytes, more than the " +
                     std::to_string(allowed) + " allowed (" + std::to_string(kMaxJsonCostPerByte) +
                     " times the text, at least " + std::to_string(kJsonCostFloorBytes) + ")");
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    fail(source, what + (plural ? " are" : " is") + " not valid JSON: " + excerpt(e.what(), kMaxParserMessageBytes));
  }
}

std::string json_excerpt(const nlohmann::json& value) {
  std::string out;
  append_excerpt(value, out, kMaxQuotedBytes);
  if (out.size() <= kMaxQuotedBytes) return out;
  return excerpt(out, kMaxQuotedBytes);  // cut where the budget ran out, marked with "..."
}

}  // namespace attnscope
