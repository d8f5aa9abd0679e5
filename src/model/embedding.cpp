#include "model/embedding.h"

namespace attnscope {

Matrix embed(const ops::WeightMatrix& table, const Matrix& positions, const std::vector<int>& ids, int first_position,
             float scale, NamedVectors* vectors) {
  const auto n = static_cast<Eigen::Index>(ids.size());
  if (first_position < 0 || first_position + n > positions.rows())
    throw InputError("sequence needs positions up to " + std::to_string(first_position + n) +
                     " but the model has only " + std::to_string(positions.rows()));
  Matrix tokens(n, table.cols());
  for (Eigen::Index i = 0; i < n; ++i) {
    if (ids[i] < 0 || ids[i] >= table.rows())
      throw IndexError("token id " + std::to_string(ids[i]) + " is outside the vocabulary [0, " +
                       std::to_string(table.rows()) + ")");
    tokens.row(i) = table.row(ids[i]) * scale;
  }
  const auto pos = positions.middleRows(first_position, n);
  if (vectors) {
    (*vectors)["embedding"] = tokens;
    (*vectors)["positional"] = pos;
  }
  return tokens + pos;
}

void prepare_step_output(ops::WeightMatrix& output, const ops::WeightMatrix& table, bool tied, bool int8) {
  if (!tied) output.prepare_for_steps(int8);
  else if (int8) output = ops::WeightMatrix::int8(table.to_matrix());  // quantising reads every row
}

}  // namespace attnscope
