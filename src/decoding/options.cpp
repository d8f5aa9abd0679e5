#include "decoding/options.h"

#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "core/quote.h"

namespace attnscope {
namespace {

// 1.5, not 1.500000 (what `std::ostream << x` writes). No iostreams in the engine: they link
// libc++'s locales, and with them the date formatting of Emscripten's JS glue, into the .wasm
// and the widget's bundle.
std::string text_of(double x) {
  char out[32];
  std::snprintf(out, sizeof out, "%g", x);
  return out;
}

}  // namespace

void DecodeOptions::validate() const {
  auto fail = [](const std::string& what) { throw InputError("decoding option " + what); };
  if (beam_size < 1 || beam_size > 64) fail("beam_size must be in [1, 64], got " + std::to_string(beam_size));
  if (nbest < 1 || nbest > beam_size)
    fail("nbest must be in [1, beam_size = " + std::to_string(beam_size) + "], got " + std::to_string(nbest));
  if (!(alpha >= 0.0 && alpha <= 10.0)) fail("alpha must be in [0, 10]");
  if (max_length < 0) fail("max_length must be >= 0");
  if (min_length < 0) fail("min_length must be >= 0");
  if (!(max_length_a >= 0.0 && std::isfinite(max_length_a)) || !std::isfinite(max_length_b))
    fail("max_length_a must be >= 0 and max_length_b finite");
  if (no_repeat_ngram_size < 0 || no_repeat_ngram_size > 1000)
    fail("no_repeat_ngram_size must be in [0, 1000] (0 = off), got " + std::to_string(no_repeat_ngram_size));
  if (!(repetition_penalty > 0.0 && repetition_penalty <= 1000.0))
    fail("repetition_penalty must be in (0, 1000] (1 = off), got " + text_of(repetition_penalty));
  if (!(temperature > 0.0 && std::isfinite(temperature))) fail("temperature must be > 0");
  if (top_k < 0) fail("top_k must be >= 0");
  if (!(top_p > 0.0 && top_p <= 1.0)) fail("top_p must be in (0, 1]");
  if (alternatives < 0) fail("alternatives must be >= 0");
}

Strategy parse_strategy(const std::string& name) {
  if (name == "greedy") return Strategy::Greedy;
  if (name == "beam") return Strategy::Beam;
  if (name == "sample") return Strategy::Sample;
  throw InputError("unknown decoding strategy " + quote(name) + " (use greedy, beam or sample)");
}

LengthPenalty parse_length_penalty(const std::string& name) {
  if (name == "none") return LengthPenalty::None;
  if (name == "average") return LengthPenalty::Average;
  if (name == "gnmt") return LengthPenalty::GNMT;
  if (name == "power") return LengthPenalty::Power;
  throw InputError("unknown length penalty " + quote(name) + " (use none, average, gnmt or power)");
}

EarlyStopping parse_early_stopping(const std::string& name) {
  if (name == "bound") return EarlyStopping::Bound;
  if (name == "heuristic") return EarlyStopping::Heuristic;
  if (name == "early") return EarlyStopping::Early;
  if (name == "never") return EarlyStopping::Never;
  throw InputError("unknown early stopping rule " + quote(name) + " (use bound, heuristic, early or never)");
}

const char* to_string(Strategy s) {
  return s == Strategy::Greedy ? "greedy" : s == Strategy::Beam ? "beam" : "sample";
}

const char* to_string(LengthPenalty p) {
  return p == LengthPenalty::None ? "none" : p == LengthPenalty::Average ? "average" : p == LengthPenalty::GNMT ? "gnmt" : "power";
}

const char* to_string(EarlyStopping e) {
  return e == EarlyStopping::Bound ? "bound" : e == EarlyStopping::Heuristic ? "heuristic" : e == EarlyStopping::Early ? "early" : "never";
}

DecodeOptions with_generation_defaults(DecodeOptions o, const GenerationDefaults& g) {
  if (g.strategy) o.strategy = parse_strategy(*g.strategy);
  if (g.beam_size) o.beam_size = *g.beam_size;
  if (g.nbest) o.nbest = *g.nbest;
  if (g.max_length) o.max_length = *g.max_length;
  if (g.min_length) o.min_length = *g.min_length;
  if (g.length_penalty) o.length_penalty = parse_length_penalty(*g.length_penalty);
  if (g.alpha) o.alpha = *g.alpha;
  if (g.early_stopping) o.early_stopping = parse_early_stopping(*g.early_stopping);
  if (g.no_repeat_ngram_size) o.no_repeat_ngram_size = *g.no_repeat_ngram_size;
  if (g.repetition_penalty) o.repetition_penalty = *g.repetition_penalty;
  if (g.forced_eos) o.forced_eos = *g.forced_eos;
  if (g.renormalize) o.renormalize = *g.renormalize;
  return o;
}

double penalized_score(double score, int length, LengthPenalty penalty, double alpha) {
  switch (penalty) {
    case LengthPenalty::None:
      return score;
    case LengthPenalty::Average:
      return score / std::max(length, 1);
    case LengthPenalty::GNMT:
      return score / std::pow((5.0 + length) / 6.0, alpha);
    case LengthPenalty::Power:  // HF's sequences_scores: sum of log-probs / len^length_penalty
      return score / std::pow(static_cast<double>(std::max(length, 1)), alpha);
  }
  return score;
}

}  // namespace attnscope
