#pragma once
// What every family's Differentiable (model/differentiable.h) shares: the checks of its arguments, so
// that each refuses the same mistakes with the same words, and the bookkeeping around its pass.
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "core/tensor_list.h"
#include "model/differentiable.h"

namespace attnscope::train {

// `side` ("source", "target") holds 1..max_positions ids, or none where the family reads no such side.
void check_side(const std::vector<int>& ids, bool used, int max_positions, const char* side);
// The input embeddings of a side: [count, d].
void check_input_rows(const Matrix& rows, std::size_t count, Eigen::Index d, const char* side);
// backward's d_logits: the shape of the last forward's logits (none yet: rows < 0).
void check_d_logits(const Matrix& d_logits, Eigen::Index rows, Eigen::Index vocab);

// Σ of the tensors' sizes.
inline std::size_t count_parameters(const TensorList& tensors) {
  std::size_t n = 0;
  for (const NamedTensor& t : tensors) n += static_cast<std::size_t>(t.tensor->size());
  return n;
}

// A family's pass on weights that `owner` keeps alive (the loaded model the pass reads), with the
// shape of the last forward's logits that backward's d_logits must have.
template <class Pass>
class PassDifferentiable : public Differentiable {
 public:
  PassDifferentiable(std::shared_ptr<const void> owner, Pass pass, std::size_t parameters)
      : owner_(std::move(owner)), pass_(std::move(pass)), parameters_(parameters) {}
  PassDifferentiable(const PassDifferentiable&) = delete;

  std::size_t parameter_count() const override { return parameters_; }

 protected:
  // The logits of `run()` (the pass's forward); a forward that throws leaves nothing to differentiate.
  template <class Run>
  Matrix remember(Run run) {
    logit_rows_ = -1;
    Matrix logits = run();
    logit_rows_ = logits.rows();
    return logits;
  }
  void check_backward(const Matrix& d_logits) const { check_d_logits(d_logits, logit_rows_, vocab_size()); }

  std::shared_ptr<const void> owner_;
  Pass pass_;

 private:
  std::size_t parameters_;
  Eigen::Index logit_rows_ = -1;  // of the last forward; -1 before the first
};

}  // namespace attnscope::train
