#include "analysis/bleu_by_length.h"

#include "core/error.h"
#include "decoding/session.h"

namespace attnscope {

std::vector<int> default_length_edges() { return {8, 12, 16, 20}; }

void check_length_edges(const std::vector<int>& edges) {
  if (edges.empty()) throw InputError("the length bins need at least one edge (e.g. 8,12,16,20)");
  for (std::size_t i = 0; i < edges.size(); ++i) {
    if (edges[i] < 1) throw InputError("a length-bin edge must be a positive number of words, got " + std::to_string(edges[i]));
    if (i > 0 && edges[i] <= edges[i - 1])
      throw InputError("the length-bin edges must increase: " + std::to_string(edges[i - 1]) + " then " +
                       std::to_string(edges[i]));
  }
}

BleuByLength bleu_by_length(const std::vector<std::string>& sources, const std::vector<std::string>& hypotheses,
                            const std::vector<std::string>& references, const std::vector<int>& edges) {
  check_length_edges(edges);
  if (sources.size() != hypotheses.size() || sources.size() != references.size())
    throw InputError("BLEU by length needs one translation and one reference per source: got " +
                     std::to_string(sources.size()) + " sources, " + std::to_string(hypotheses.size()) +
                     " translations and " + std::to_string(references.size()) + " references");
  if (sources.empty()) throw InputError("BLEU by length needs at least one sentence");
  BleuByLength out;
  out.edges = edges;
  out.sentences = static_cast<int>(sources.size());
  std::vector<std::vector<std::string>> hyps(edges.size() + 1), refs(edges.size() + 1);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const std::size_t words = count_words(sources[i]);
    if (words == 0) throw InputError("source " + std::to_string(i + 1) + " has no words");
    std::size_t bin = 0;
    while (bin < edges.size() && words > static_cast<std::size_t>(edges[bin])) ++bin;
    hyps[bin].push_back(hypotheses[i]);
    refs[bin].push_back(references[i]);
  }
  for (std::size_t b = 0; b <= edges.size(); ++b) {
    LengthBin bin;
    bin.min_words = b == 0 ? 1 : edges[b - 1] + 1;
    bin.max_words = b < edges.size() ? edges[b] : 0;
    bin.sentences = static_cast<int>(hyps[b].size());
    if (bin.sentences > 0) bin.bleu = corpus_bleu(hyps[b], refs[b]);
    out.bins.push_back(bin);
  }
  out.total = corpus_bleu(hypotheses, references);
  return out;
}

BleuByLength translate_bleu_by_length(const std::shared_ptr<const Model>& model, const std::vector<std::string>& sources,
                                      const std::vector<std::string>& references, DecodeOptions options,
                                      const std::vector<int>& edges, std::vector<std::string>* translations,
                                      const std::function<void(int, int)>& progress) {
  // Every check that needs no translation comes first: a bad bin or a missing reference is
  // reported before minutes of decoding, not after.
  check_length_edges(edges);
  if (sources.size() != references.size())
    throw InputError("BLEU by length needs one reference per source: got " + std::to_string(sources.size()) +
                     " sources and " + std::to_string(references.size()) + " references");
  if (sources.empty()) throw InputError("BLEU by length needs at least one sentence");
  for (std::size_t i = 0; i < sources.size(); ++i)
    if (count_words(sources[i]) == 0) throw InputError("source " + std::to_string(i + 1) + " has no words");
  options.capture = {false, false, false};
  options.validate();
  const int total = static_cast<int>(sources.size());
  if (progress) progress(0, total);
  std::vector<std::string> hypotheses;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    try {
      DecodeSession session(model, sources[i], options);
      session.run();
      hypotheses.push_back(session.detokenize(session.nbest().at(0).tokens));
    } catch (const InputError& e) {
      throw InputError("source " + std::to_string(i + 1) + " cannot be translated: " + e.what());
    }
    if (progress) progress(static_cast<int>(i) + 1, total);
  }
  BleuByLength out = bleu_by_length(sources, hypotheses, references, edges);
  if (translations) *translations = std::move(hypotheses);
  return out;
}

}  // namespace attnscope
