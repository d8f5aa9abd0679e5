// The bindings' corpus functions (corpora.h).
#include "corpora.h"

#include <cstdint>
#include <vector>

#include "analysis/bleu_by_length.h"
#include "train/corpus.h"
#include "train/repeated_sequences.h"
#include "train/successor_walks.h"

namespace attnscope::bindings {

namespace {

// An induction-heads corpus as {symbols: words, pairs: [[source, target]] (a language model
// learns <bos> source target </s>), probes: texts}.
val corpus_object(const train::InductionCorpus& corpus) {
  val out = val::object();
  out.set("symbols", to_array(corpus.symbols));
  val pairs = val::array();
  for (std::size_t i = 0; i < corpus.pairs.size(); ++i)
    pairs.set(i, to_array(std::vector<std::string>{corpus.pairs[i].source, corpus.pairs[i].target}));
  out.set("pairs", pairs);
  out.set("probes", to_array(corpus.probes));
  return out;
}

// A corpus seed from JS: a whole number a double holds exactly.
std::uint64_t corpus_seed(double seed, const std::string& corpus) {
  if (!(seed >= 0 && seed <= 9007199254740991.0 && seed == static_cast<double>(static_cast<std::uint64_t>(seed))))
    throw InputError(corpus + ": the seed must be an integer in [0, 2^53)");
  return static_cast<std::uint64_t>(seed);
}

}  // namespace

val parse_pairs(const std::string& csv, int max_pairs) {
  return guarded([&] {
    val sources = val::array(), targets = val::array();
    const auto pairs = train::parse_pairs_csv(csv, max_pairs);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      sources.set(i, pairs[i].source);
      targets.set(i, pairs[i].target);
    }
    val out = val::object();
    out.set("sources", sources);
    out.set("targets", targets);
    return out;
  });
}

val repeated_sequences(int half_length, int min_half_length, int max_prefix, int symbols, int sequences, double seed,
                       int probes) {
  return guarded([&] {
    train::RepeatedSequencesOptions options;
    options.half_length = half_length;
    options.min_half_length = min_half_length;
    options.max_prefix = max_prefix;
    options.symbols = symbols;
    options.sequences = sequences;
    options.seed = corpus_seed(seed, "repeated sequences");
    return corpus_object(train::repeated_sequences(options, probes));
  });
}

val successor_walks(int symbols, int length, double jump, int sequences, double seed, int probe_length, int probes) {
  return guarded([&] {
    train::SuccessorWalksOptions options;
    options.symbols = symbols;
    options.length = length;
    options.jump = jump;
    options.sequences = sequences;
    options.seed = corpus_seed(seed, "successor walks");
    options.probe_length = probe_length;
    return corpus_object(train::successor_walks(options, probes));
  });
}

val bleu_by_length_of(const val& sources, const val& translations, const val& references, const val& edges) {
  return guarded([&] {
    return bleu_by_length_val(bleu_by_length(emscripten::vecFromJSArray<std::string>(sources),
                                             emscripten::vecFromJSArray<std::string>(translations),
                                             emscripten::vecFromJSArray<std::string>(references), length_edges(edges)));
  });
}

}  // namespace attnscope::bindings
