// The WASM heap's use and warm-up (heap.h).
#include "heap.h"

#include <malloc.h>

#include <cstddef>
#include <cstdlib>

namespace attnscope::bindings {

double heap_in_use() { return static_cast<double>(mallinfo().uordblks); }

void warm_heap(double bytes) {
  if (!(bytes > 0) || bytes > 1e9) return;
  const std::size_t n = static_cast<std::size_t>(bytes);
  auto* p = static_cast<volatile unsigned char*>(std::malloc(n));
  if (!p) return;
  for (std::size_t i = 0; i < n; i += 4096) p[i] = 0;
  std::free(const_cast<unsigned char*>(p));
}

}  // namespace attnscope::bindings
