#include "decoding/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace attnscope {

int Sampler::sample(const float* logits, int n, double temperature, int top_k, double top_p, int banned) {
  // Softmax over the whole vocabulary, in double.
  std::vector<double> p(n);
  double max = -INFINITY;
  for (int i = 0; i < n; ++i)
    if (i != banned) max = std::max(max, static_cast<double>(logits[i]) / temperature);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    p[i] = i == banned ? 0.0 : std::exp(static_cast<double>(logits[i]) / temperature - max);
    sum += p[i];
  }
  for (double& x : p) x /= sum;

  // Candidates by probability, descending; lower id first on ties.
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (banned >= 0 && banned < n) order.erase(order.begin() + banned);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[a] > p[b]; });

  std::size_t keep = order.size();
  if (top_k > 0) keep = std::min<std::size_t>(keep, top_k);
  if (top_p < 1.0) {
    double mass = 0.0;
    std::size_t i = 0;
    while (i < keep) {
      mass += p[order[i++]];
      if (mass >= top_p) break;
    }
    keep = std::max<std::size_t>(i, 1);
  }

  double kept = 0.0;
  for (std::size_t i = 0; i < keep; ++i) kept += p[order[i]];
  const double u = uniform();
  double cumulative = 0.0;
  for (std::size_t i = 0; i < keep; ++i) {
    cumulative += p[order[i]] / kept;
    if (cumulative > u) return order[i];
  }
  return order[keep - 1];
}

}  // namespace attnscope
