#include "model/generation.h"

#include <cmath>

#include "core/error.h"
#include "core/json.h"
#include "core/quote.h"

namespace attnscope {
namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& key, const std::string& why) {
  throw ModelFileError("metadata 'generation' field '" + key + "' " + why);
}

int integer(const json& v, const std::string& key, int lo, int hi) {
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
    fail(key, "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + json_excerpt(v));
  return v.get<int>();
}

double number(const json& v, const std::string& key, double lo, double hi) {
  if (!v.is_number() || !(v.get<double>() >= lo && v.get<double>() <= hi))
    fail(key, "must be a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + json_excerpt(v));
  return v.get<double>();
}

bool boolean(const json& v, const std::string& key) {
  if (!v.is_boolean()) fail(key, "must be true or false, got " + json_excerpt(v));
  return v.get<bool>();
}

std::string choice(const json& v, const std::string& key, std::initializer_list<const char*> choices) {
  std::string list;
  for (const char* c : choices) {
    if (v.is_string() && v.get<std::string>() == c) return c;
    list += (list.empty() ? "\"" : ", \"") + std::string(c) + "\"";
  }
  fail(key, "must be one of " + list + ", got " + json_excerpt(v));
}

}  // namespace

GenerationDefaults GenerationDefaults::from_json(const std::string& text) {
  const json j = parse_json(text, "metadata 'generation'", JsonSource::ModelFile);
  if (!j.is_object()) throw ModelFileError("metadata 'generation' must be a JSON object");
  GenerationDefaults g;
  for (const auto& [key, v] : j.items()) {
    if (key == "strategy") g.strategy = choice(v, key, {"greedy", "beam", "sample"});
    else if (key == "beam_size") g.beam_size = integer(v, key, 1, 64);
    else if (key == "nbest") g.nbest = integer(v, key, 1, 64);
    else if (key == "max_length") g.max_length = integer(v, key, 1, 1 << 20);
    else if (key == "min_length") g.min_length = integer(v, key, 0, 1 << 20);
    else if (key == "length_penalty") g.length_penalty = choice(v, key, {"none", "average", "gnmt", "power"});
    else if (key == "alpha") g.alpha = number(v, key, 0.0, 10.0);
    else if (key == "early_stopping") g.early_stopping = choice(v, key, {"bound", "heuristic", "early", "never"});
    else if (key == "no_repeat_ngram_size") g.no_repeat_ngram_size = integer(v, key, 0, 1000);
    else if (key == "repetition_penalty") g.repetition_penalty = number(v, key, 1e-9, 1000.0);
    else if (key == "forced_eos") g.forced_eos = boolean(v, key);
    else if (key == "renormalize") g.renormalize = boolean(v, key);
    else
      throw ModelFileError("metadata 'generation' has an unknown field " + quote(key) +
                           " (strategy, beam_size, nbest, max_length, min_length, length_penalty, alpha, "
                           "early_stopping, no_repeat_ngram_size, repetition_penalty, forced_eos, renormalize)");
  }
  if (g.nbest && *g.nbest > g.beam_size.value_or(1))
    fail("nbest", "= " + std::to_string(*g.nbest) + " is more than beam_size = " + std::to_string(g.beam_size.value_or(1)));
  return g;
}

std::string GenerationDefaults::to_json() const {
  json j = json::object();
  if (strategy) j["strategy"] = *strategy;
  if (beam_size) j["beam_size"] = *beam_size;
  if (nbest) j["nbest"] = *nbest;
  if (max_length) j["max_length"] = *max_length;
  if (min_length) j["min_length"] = *min_length;
  if (length_penalty) j["length_penalty"] = *length_penalty;
  if (alpha) j["alpha"] = *alpha;
  if (early_stopping) j["early_stopping"] = *early_stopping;
  if (no_repeat_ngram_size) j["no_repeat_ngram_size"] = *no_repeat_ngram_size;
  if (repetition_penalty) j["repetition_penalty"] = *repetition_penalty;
  if (forced_eos) j["forced_eos"] = *forced_eos;
  if (renormalize) j["renormalize"] = *renormalize;
  return j.dump();
}

}  // namespace attnscope
