#pragma once
#include <vector>

#include "layers/probe.h"
#include "ops/weight_matrix.h"

namespace attnscope {

// x[i] = table[ids[i]] * scale + positions[first_position + i]. Ids and positions are
// checked: an id past the table or a position past max_positions is an error, never a read
// out of bounds. Records "embedding" and "positional" in `vectors` when given. Only the rows of
// `ids` are converted from the table's held form.
Matrix embed(const ops::WeightMatrix& table, const Matrix& positions, const std::vector<int>& ids, int first_position,
             float scale, NamedVectors* vectors);

// The output projection a decoder step multiplies by, prepared at load. An untied `output` takes
// its step form (ops::WeightMatrix::prepare_for_steps). A tied one is `table` itself, already in
// the packed form a step reads (WeightReader::embedding_table), and `output` stays empty, except
// under the int8 load option: `output` then holds the table's int8 form, a second, approximate
// copy for the steps only, beside the exact table the embedding lookups read.
void prepare_step_output(ops::WeightMatrix& output, const ops::WeightMatrix& table, bool tied, bool int8);

}  // namespace attnscope
