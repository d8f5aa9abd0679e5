// The WASM heap's use (heap.h).
#include "heap.h"

#include <malloc.h>


namespace attnscope::bindings {

double heap_in_use() { return static_cast<double>(mallinfo().uordblks); }

}  // namespace attnscope::bindings
