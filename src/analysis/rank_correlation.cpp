#include "analysis/rank_correlation.h"

#include <cmath>
#include <limits>
#include <string>

#include "core/error.h"

namespace attnscope {

double kendall_tau_b(const std::vector<float>& x, const std::vector<float>& y) {
  if (x.size() != y.size())
    throw InputError("Kendall tau needs two lists of one length, got " + std::to_string(x.size()) + " and " +
                     std::to_string(y.size()));
  // Pairs counted directly (O(n²)): a row has one entry per token of a sentence.
  long long concordant = 0, discordant = 0, ties_x = 0, ties_y = 0, pairs = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      ++pairs;
      const double dx = static_cast<double>(x[i]) - x[j], dy = static_cast<double>(y[i]) - y[j];
      if (dx == 0) ++ties_x;
      if (dy == 0) ++ties_y;
      if (dx == 0 || dy == 0) continue;
      ((dx > 0) == (dy > 0) ? concordant : discordant) += 1;
    }
  }
  const double denominator = std::sqrt(static_cast<double>(pairs - ties_x) * static_cast<double>(pairs - ties_y));
  if (denominator == 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(concordant - discordant) / denominator;
}

}  // namespace attnscope
