#include "layers/loss.h"

#include "ops/ops.h"

namespace attnscope::train {

double smoothed_cross_entropy(const Matrix& logits, const std::vector<int>& gold, float eps, int divide_by,
                              Matrix& d_logits) {
  const int n = static_cast<int>(gold.size()), vocab = static_cast<int>(logits.cols());
  double loss_sum = 0.0;
  d_logits.resize(n, vocab);
  for (int r = 0; r < n; ++r) {
    const Matrix log_probs = ops::log_softmax_of_row(logits.row(r)).log_probs(logits.row(r));  // [1, V]
    const double nll = -log_probs(0, gold[r]);
    const double smooth = -static_cast<double>(log_probs.sum()) / vocab;
    loss_sum += (1.0 - eps) * nll + eps * smooth;
    d_logits.row(r) = log_probs.array().exp() - eps / vocab;
    d_logits(r, gold[r]) -= 1.0f - eps;
  }
  d_logits /= static_cast<float>(divide_by);
  return loss_sum;
}

LossResult batch_loss(const Matrix& logits, const std::vector<int>& gold, float label_smoothing, Matrix& d_logits) {
  LossResult result;
  result.tokens = static_cast<int>(gold.size());
  result.loss_sum = smoothed_cross_entropy(logits, gold, label_smoothing, result.tokens, d_logits);
  return result;
}

}  // namespace attnscope::train
