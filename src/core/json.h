#pragma once
// The one door to nlohmann's parser. Every JSON the engine reads goes through parse_json: a
// model file's safetensors header and the JSON inside its metadata strings (config,
// vocabularies, tokenizer), decoding options, interventions and training options. The limit
// below therefore holds for all of them, and a bad text is an Error of the caller's kind.
#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace attnscope {

// Arrays and objects nest at most this deep. The engine's own formats nest 4 levels at most
// (decoding options > interventions > attention > a weight matrix); 256 leaves room for any
// format to come. The limit exists because a parsed value is walked recursively (dump(),
// copies, comparisons: a stack frame per level; 100,000 levels overflowed the native stack and
// V8's) and because nested brackets are the cheapest way to make the parser allocate: each
// costs ~70 bytes of DOM per byte pair of text (2.3 GB for a 62 MB file). The depth is counted
// before the parser runs, so a refused text costs one pass over its bytes and no allocation.
inline constexpr int kMaxJsonDepth = 256;

// What parsing may cost. nlohmann's DOM takes ~48 bytes per value (its slot in a growing
// array), ~64 more per array or object and ~48 more per string: a text of nothing but "0," or
// "[]," costs 20 to 40 times its size (60 MB of it took 1.4 GB). The engine's own documents
// cost at most ~14 times theirs (a BPE tokenizer's short merges; a vocabulary ~11 times). So a
// text whose values would take more than kMaxJsonCostPerByte times its size, beyond a floor of
// kJsonCostFloorBytes that any small document fits, is refused by the same scan, unparsed.
inline constexpr std::size_t kMaxJsonCostPerByte = 16;
inline constexpr std::size_t kJsonCostFloorBytes = 16u << 20;

// Who is at fault when a text is refused: a model file (ModelFileError) or the caller's input
// (InputError).
enum class JsonSource { ModelFile, Input };

// Parses `text`. `what` names it in the messages ("config metadata", or "decoding options" with
// `plural`): "<what> is (are) not valid JSON: ...", "<what> nest(s) arrays and objects deeper
// than 256 levels (at byte N)", "<what> hold(s) too many values for (its|their) N bytes ...".
// With `max_array_values`, an array of more values is refused by the same scan, unparsed: "<what>
// hold(s) an array of more than M values (at byte N)" (a model's tables, text/table_limits.h).
nlohmann::json parse_json(std::string_view text, const std::string& what, JsonSource source, bool plural = false,
                          std::size_t max_array_values = std::numeric_limits<std::size_t>::max());

// A value as a message quotes it: its JSON text, cut to a short printable excerpt without
// serialising the whole value (it may be megabytes).
std::string json_excerpt(const nlohmann::json& value);

}  // namespace attnscope
