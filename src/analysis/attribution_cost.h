#pragma once
// The work of explaining one prediction (analysis/attribution.h), counted before anything runs,
// and the budget that bounds integrated gradients, the one method whose cost a reader picks by a
// number. A forward over T tokens through a model of P parameters takes about P·T multiply-adds
// (each weight meets each token once; attention's T² terms are small beside it at the lengths the
// models allow), its backward about twice that. Per explained prediction:
//   gradient × input:      3·P·T           one forward and its backward
//   integrated gradients:  (3·m + 2)·P·T   m forwards and backwards, then f(x) and f(x')
//   erasure:               (1 + T)·P·T     at most: the whole input, then a forward per token left out
// Integrated gradients may take at most max_ig_steps(P, T) steps: the most whose work stays within
// kAttributionBudget, but never fewer than the default 32, so that the default runs on any input
// a model takes (at what its length costs: up to 18 budgets for the multi30k RNN at 128 + 128
// tokens), and never more than 4,096.
#include <cstddef>
#include <string>

#include "analysis/attribution.h"

namespace attnscope {

// Multiply-adds per explained prediction: about 2 s of the WebAssembly engine on the GPT model,
// 1 s on multi30k-en-de (docs/reliability.md, "Attribution").
constexpr double kAttributionBudget = 1e10;

struct AttributionCost {
  double work = 0;       // multiply-adds, about
  long long passes = 0;  // forwards (with their backward for the gradient methods)
  int max_steps = 0;     // integrated gradients: the most steps allowed (of the longest input counted)
  AttributionCost& operator+=(const AttributionCost& other);
};

// The most integrated-gradients steps for one prediction over `tokens` (source and target
// together) of a model with `parameters`: in [kDefaultSteps, kMaxSteps] of AttributionOptions.
int max_ig_steps(std::size_t parameters, std::size_t tokens);

// The work of one prediction over `tokens` with `options`.
AttributionCost attribution_cost(std::size_t parameters, std::size_t tokens, const AttributionOptions& options);

// InputError when integrated gradients over `tokens` would take more steps than max_ig_steps():
// the steps asked, the work, the budget and the most steps this input allows.
void check_attribution_budget(std::size_t parameters, std::size_t tokens, const AttributionOptions& options);

}  // namespace attnscope
