#include "layers/layer_stack.h"

namespace attnscope::train {

Matrix add_positions(const Matrix& inputs, const Matrix& positions, const std::vector<Segment>& segments) {
  Matrix x(inputs.rows(), inputs.cols());
  for (const Segment& s : segments)
    x.middleRows(s.begin, s.length) = inputs.middleRows(s.begin, s.length) + positions.topRows(s.length);
  return x;
}

void add_positions_backward(Matrix& positions_grad, const std::vector<Segment>& segments, const Matrix& dy) {
  for (const Segment& s : segments) positions_grad.topRows(s.length) += dy.middleRows(s.begin, s.length);
}

std::vector<Segment> segments_of_lengths(const std::vector<int>& lengths) {
  std::vector<Segment> segments;
  int begin = 0;
  for (int length : lengths) {
    segments.push_back({begin, length});
    begin += length;
  }
  return segments;
}

}  // namespace attnscope::train
