#pragma once
// A checkpoint's generation defaults: the `generation` metadata (models/FORMAT.md), e.g. what
// a Hugging Face generation_config.json says, in the engine's terms. Parsed and validated here,
// once, at load; the CLI and the JS API report them (`info().generation`) and the page starts
// from them. Every field is optional; the engine's own defaults hold for the others.
#include <optional>
#include <string>

namespace attnscope {

struct GenerationDefaults {
  std::optional<std::string> strategy;        // "greedy" | "beam" | "sample"
  std::optional<int> beam_size;               // [1, 64]
  std::optional<int> nbest;                   // [1, beam_size]
  std::optional<int> max_length;              // generated tokens, </s> included: HF's max_length - 1
  std::optional<int> min_length;
  std::optional<std::string> length_penalty;  // "none" | "average" | "gnmt" | "power"
  std::optional<double> alpha;                // [0, 10]
  std::optional<std::string> early_stopping;  // "bound" | "heuristic" | "early" | "never"
  std::optional<int> no_repeat_ngram_size;
  std::optional<double> repetition_penalty;
  std::optional<bool> forced_eos;   // HF's forced_eos_token_id = </s>
  std::optional<bool> renormalize;  // HF's renormalize_logits

  bool empty() const { return to_json() == "{}"; }
  // Throws ModelFileError naming the field for anything else than the fields above in range.
  static GenerationDefaults from_json(const std::string& text);
  std::string to_json() const;  // the fields that are set, with the names above
};

}  // namespace attnscope
