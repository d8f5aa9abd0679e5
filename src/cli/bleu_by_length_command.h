#pragma once
// attnscope-cli bleu-by-length: corpus BLEU per bin of source length (analysis/bleu_by_length.h),
// of a model's translations (decoded with translate's options) or of given ones (--hyps).
#include <memory>
#include <string>
#include <vector>

#include "decoding/options.h"
#include "model/model.h"

namespace attnscope::cli {

struct BleuByLengthArgs {
  std::string input, refs, hyps, bins;  // bins: "8,12,16,20" (empty: the default)
  std::string translations;             // where to write the model's translations (empty: nowhere)
  int limit = 0;                        // the first N lines only (0: all)
  bool json = false;
};

// "8,12,16,20" -> {8, 12, 16, 20}; throws Error for anything but comma-separated integers
// (the analysis checks that they are positive and increasing).
std::vector<int> parse_length_edges(const std::string& text);

// Prints the table (or, with json, one object in the shape of the JS API's bleuByLength).
// `model` is null when args.hyps gives the translations. Returns the exit status.
int bleu_by_length_command(const std::shared_ptr<const Model>& model, const DecodeOptions& decode, const BleuByLengthArgs& args);

extern const char* kBleuByLengthUsage;

}  // namespace attnscope::cli
