// The bindings' conversions, shared by every handle: the engine's C++ values to plain JavaScript
// values (emscripten::val) and back, and C++ exceptions to {error: message} results, which
// web/attnscope.js rethrows as JS Errors. No math lives here. Every typed array handed to JS is a
// copy, never a view into the WASM heap, so no later call can change or invalidate it.
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "analysis/attribution_session.h"
#include "analysis/bleu_by_length.h"
#include "core/tensor.h"
#include "text/vocabulary.h"

namespace attnscope::bindings {

using emscripten::val;

// f() or, if it throws, {error: what went wrong}.
template <class F>
val guarded(F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    // Not "std::bad_alloc": what the user can do about it. A load's allocations are bounded
    // by the file's size (model/weight_reader.h), so this is a model or a corpus too big for
    // the tab's memory.
    val result = val::object();
    result.set("error", std::string("the attnscope engine ran out of memory (the WebAssembly heap cannot grow further)"));
    return result;
  } catch (const std::exception& e) {
    val result = val::object();
    result.set("error", std::string(e.what()));
    return result;
  } catch (...) {
    val result = val::object();
    result.set("error", std::string("unknown error in the attnscope engine"));
    return result;
  }
}

template <class T>
val to_array(const std::vector<T>& items) {
  val out = val::array();
  for (std::size_t i = 0; i < items.size(); ++i) out.set(i, items[i]);
  return out;
}

template <class T>
val nested(const std::vector<std::vector<T>>& rows) {
  val out = val::array();
  for (std::size_t i = 0; i < rows.size(); ++i) out.set(i, to_array(rows[i]));
  return out;
}

// A JS Uint8Array's bytes in the engine's memory, copied by one TypedArray.set (a memcpy): Embind's
// std::string conversion copies a typed array byte by byte in JavaScript (~100 ms of a 12 MB
// model's load in Node).
// Inline, so that it is compiled into the handles that call it: val::call keeps a thread_local
// (emscripten/val.h), and clang 14 leaves a file's thread-locals in place unless it also strips
// atomics from that file (the handles hold shared_ptrs, whose counts are atomic); wasm-ld then
// refuses the link ("'atomics' feature must be used in order to use thread-local storage").
inline std::vector<std::uint8_t> bytes_of(const val& array) {
  std::vector<std::uint8_t> out(array["length"].as<std::size_t>());
  val(emscripten::typed_memory_view(out.size(), out.data())).call<void>("set", array);
  return out;
}

val float32_copy(const float* data, std::size_t n);
val matrix(const Matrix& m);  // {shape: [rows, cols], data: Float32Array}
val tensor(const Tensor& t);  // {shape, data: Float32Array}
val tokens_of(const Vocabulary& vocab, const std::vector<int>& ids);

// One explained prediction (analysis/attribution_session.h): {step, token, tokenId, sourceTokens,
// sourceScores, targetTokens, targetScores, f, sum, fBaseline?, completenessError?,
// completenessShare?, suggestedSteps?, agreement?}.
val token_attribution(const TokenAttribution& a, const Vocabulary& source, const Vocabulary& target);
// Attention's agreement with an attribution: {site, layers, heads, tau: Float64Array}.
val agreement(const AttentionAgreement& a);
// The work of an attribution request (analysis/attribution_cost.h): {work, passes, maxSteps}.
val cost_val(const AttributionCost& c);

// The length-bin edges a JS caller gave (null or undefined: the engine's default bins).
std::vector<int> length_edges(const val& edges);

// An optional JS flag (web/api/ has checked it is a boolean): null or undefined -> unset.
std::optional<bool> optional_flag(const val& flag);
// The shape of `attnscope-cli bleu-by-length --json` (src/cli/bleu_by_length_command.cpp).
val bleu_by_length_val(const BleuByLength& r);

}  // namespace attnscope::bindings
