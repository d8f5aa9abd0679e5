#pragma once
// Which heads matter? Mask one head at a time and measure how much less likely the model
// finds the reference translations of a development set (Michel et al. 2019 for translation),
// and, if asked, how much its own greedy translations lose in BLEU.
#include <functional>
#include <string>
#include <vector>

#include "analysis/scoring.h"

namespace attnscope {

struct DevPair {
  Source source;
  std::vector<int> reference;  // target ids, no specials
  std::string reference_text;  // the reference as written, for BLEU
};

struct HeadImportance {
  std::string site;  // a name from the model's site table
  int layer, head;
  double delta_log_likelihood;  // per reference token: masked minus unmasked (negative = the head helps)
  double delta_bleu = 0.0;      // greedy corpus BLEU, masked minus unmasked (when asked for)
};

struct HeadSweep {
  double base_log_likelihood = 0.0;  // per reference token, nothing masked
  int tokens = 0;
  bool has_bleu = false;
  double base_bleu = 0.0;             // greedy corpus BLEU, nothing masked
  std::vector<HeadImportance> heads;  // every site (table order) x layer x head, in that order (or the range asked for)
};

struct HeadSweepOptions {
  // Also decode the dev set greedily with each head masked and score it with corpus BLEU
  // (analysis/bleu.h). Costs one greedy translation per sentence and head.
  bool bleu = false;
  // Only the heads [first_head, first_head + head_count) of that order (head_count < 0: to the
  // last), so a pool of workers can share one sweep: each computes the unmasked baseline the same
  // way and its own heads, and their answers put end to end equal the whole sweep's.
  int first_head = 0;
  int head_count = -1;
};

// `progress(done, total)` is called after each head (and once before the first).
HeadSweep head_importance_sweep(const Model& model, const std::vector<DevPair>& dev, const HeadSweepOptions& options = {},
                                const std::function<void(int, int)>& progress = {});

}  // namespace attnscope
