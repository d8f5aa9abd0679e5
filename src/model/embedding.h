#pragma once
#include <vector>

#include "layers/probe.h"

namespace attnscope {

// x[i] = table[ids[i]] * scale + positions[first_position + i]. Ids and positions are
// checked: an id past the table or a position past max_positions is an error, never a read
// out of bounds. Records "embedding" and "positional" in `vectors` when given.
Matrix embed(const Matrix& table, const Matrix& positions, const std::vector<int>& ids, int first_position,
             float scale, NamedVectors* vectors);

}  // namespace attnscope
