#include "train/differentiable.h"

#include <string>

#include "core/error.h"
#include "train/bert_grad.h"
#include "train/decoder_only_grad.h"
#include "train/differentiable_checks.h"
#include "train/model_file.h"
#include "train/rnn_grad.h"
#include "train/transformer_grad.h"

namespace attnscope::train {
namespace {

std::string shape(Eigen::Index rows, Eigen::Index cols) {
  return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

// The families attribution can differentiate, by config "architecture".
struct Registration {
  const char* architecture;
  std::unique_ptr<Differentiable> (*from_bytes)(const std::uint8_t*, std::size_t);
};

const Registration kDifferentiable[] = {
    {"transformer", [](const std::uint8_t* d, std::size_t n) { return make_differentiable(transformer_params_from_bytes(d, n)); }},
    {"decoder_only", [](const std::uint8_t* d, std::size_t n) { return make_differentiable(decoder_only_params_from_bytes(d, n)); }},
    {"rnn", &rnn_differentiable_from_bytes},
    {"bert", &bert_differentiable_from_bytes},
};

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

std::unique_ptr<Differentiable> differentiable_from_bytes(const std::uint8_t* data, std::size_t size) {
  const std::string architecture = architecture_of(data, size);
  for (const Registration& r : kDifferentiable)
    if (architecture == r.architecture) return r.from_bytes(data, size);
  throw InputError("models of architecture '" + architecture + "' have no gradient pass");
}

}  // namespace attnscope::train
