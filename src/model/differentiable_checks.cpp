#include "model/differentiable_checks.h"

#include <string>

#include "core/error.h"

namespace attnscope::train {
namespace {

std::string shape(Eigen::Index rows, Eigen::Index cols) {
  return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

}  // namespace

void check_side(const std::vector<int>& ids, bool used, int max_positions, const char* side) {
  if (!used) {
    if (!ids.empty()) throw InputError(std::string("this model reads no ") + side + " tokens, got " +
                                       std::to_string(ids.size()));
    return;
  }
  if (ids.empty()) throw InputError(std::string("the ") + side + " needs at least one token");
  if (static_cast<int>(ids.size()) > max_positions)
    throw InputError(std::string("the ") + side + " has " + std::to_string(ids.size()) +
                     " tokens, more than the model's " + std::to_string(max_positions) + " positions");
}

void check_input_rows(const Matrix& rows, std::size_t count, Eigen::Index d, const char* side) {
  if (rows.rows() != static_cast<Eigen::Index>(count) || rows.cols() != d)
    throw InputError(std::string("the ") + side + " input embeddings are " + shape(rows.rows(), rows.cols()) +
                     ", expected " + shape(static_cast<Eigen::Index>(count), d));
}

void check_d_logits(const Matrix& d_logits, Eigen::Index rows, Eigen::Index vocab) {
  if (rows < 0) throw InputError("backward needs a forward first");
  if (d_logits.rows() != rows || d_logits.cols() != vocab)
    throw InputError("d_logits is " + shape(d_logits.rows(), d_logits.cols()) + ", the last forward's logits " +
                     shape(rows, vocab));
}

}  // namespace attnscope::train
