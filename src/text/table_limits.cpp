#include "text/table_limits.h"

#include "core/error.h"

namespace attnscope {

void check_table_size(std::size_t count, std::size_t max, const std::string& what) {
  if (count > max)
    throw ModelFileError(what + " has more than " + std::to_string(max) +
                         " entries, the most a model may have (docs/reliability.md, \"Table sizes\")");
}

}  // namespace attnscope
