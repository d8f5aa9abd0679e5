#include "analysis/attribution_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace attnscope {

namespace {

// One forward over the input: P·T multiply-adds.
double forward_work(std::size_t parameters, std::size_t tokens) {
  return static_cast<double>(parameters) * static_cast<double>(tokens);
}

std::string figure(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", value);
  return text;
}

}  // namespace

AttributionCost& AttributionCost::operator+=(const AttributionCost& other) {
  work += other.work;
  passes += other.passes;
  max_steps = max_steps == 0 ? other.max_steps : std::min(max_steps, other.max_steps);
  return *this;
}

int max_ig_steps(std::size_t parameters, std::size_t tokens) {
  const double forward = forward_work(parameters, tokens);
  if (forward <= 0) return AttributionOptions::kMaxSteps;
  const double fits = std::floor((kAttributionBudget / forward - 2.0) / 3.0);
  return static_cast<int>(std::clamp(fits, static_cast<double>(AttributionOptions::kDefaultSteps),
                                     static_cast<double>(AttributionOptions::kMaxSteps)));
}

AttributionCost attribution_cost(std::size_t parameters, std::size_t tokens, const AttributionOptions& options) {
  const double forward = forward_work(parameters, tokens);
  AttributionCost cost;
  cost.max_steps = max_ig_steps(parameters, tokens);
  switch (options.method) {
    case AttributionMethod::GradientInput: cost.passes = 1, cost.work = 3 * forward; break;
    case AttributionMethod::IntegratedGradients:
      cost.passes = options.steps + 2;
      cost.work = (3.0 * options.steps + 2.0) * forward;
      break;
    case AttributionMethod::Erasure:
      cost.passes = 1 + static_cast<long long>(tokens);
      cost.work = static_cast<double>(cost.passes) * forward;
      break;
  }
  return cost;
}

void check_attribution_budget(std::size_t parameters, std::size_t tokens, const AttributionOptions& options) {
  if (options.method != AttributionMethod::IntegratedGradients) return;
  const int most = max_ig_steps(parameters, tokens);
  if (options.steps <= most) return;
  throw InputError("integrated gradients with " + std::to_string(options.steps) + " steps over " +
                   std::to_string(tokens) + " tokens of this model (" + std::to_string(parameters) +
                   " parameters) would take about " + figure(attribution_cost(parameters, tokens, options).work) +
                   " multiply-adds, more than the " + figure(kAttributionBudget) +
                   " allowed per explained token: use at most " + std::to_string(most) + " steps for this input");
}

}  // namespace attnscope
