#pragma once
// BLEU by source length: the sentences split into bins by how many words their source has, and
// each bin's corpus BLEU (analysis/bleu.h, sacreBLEU's default). The figure of Bahdanau et al.
// (2015) that shows an encoder-decoder without attention losing BLEU as sentences grow, and one
// with attention keeping it.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/bleu.h"
#include "decoding/options.h"

namespace attnscope {

struct Model;

struct LengthBin {
  int min_words = 1;
  int max_words = 0;  // 0: no upper bound (the last bin)
  int sentences = 0;
  Bleu bleu;          // all zero when the bin is empty (no BLEU is defined for no sentences)
};

struct BleuByLength {
  std::vector<int> edges;       // the upper bounds the bins were cut at
  std::vector<LengthBin> bins;  // edges.size() + 1 bins: [1, e0], [e0 + 1, e1], ..., [e_last + 1, ∞)
  int sentences = 0;
  Bleu total;  // the whole corpus, whatever the bins
};

// 1-8, 9-12, 13-16, 17-20 and 21+ words.
std::vector<int> default_length_edges();

// Throws InputError unless `edges` is a non-empty, strictly increasing list of positive integers.
void check_length_edges(const std::vector<int>& edges);

// Scores given translations. A source's length is its count of white-space separated words
// (count_words), as written. Throws InputError for lists of different lengths, no sentences, a
// source without words, or bad edges.
BleuByLength bleu_by_length(const std::vector<std::string>& sources, const std::vector<std::string>& hypotheses,
                            const std::vector<std::string>& references, const std::vector<int>& edges = default_length_edges());

// Translates every source with `options` (the best hypothesis of each: greedy, beam or sampled)
// and scores the translations as above; `translations`, when given, receives them in order.
// `progress(done, total)` is called after each sentence (and once before the first). A sentence
// the model cannot translate is an InputError that names it.
BleuByLength translate_bleu_by_length(const std::shared_ptr<const Model>& model, const std::vector<std::string>& sources,
                                      const std::vector<std::string>& references, DecodeOptions options,
                                      const std::vector<int>& edges = default_length_edges(),
                                      std::vector<std::string>* translations = nullptr,
                                      const std::function<void(int, int)>& progress = {});

}  // namespace attnscope
