// The WASM heap as JS sees it: how much is in use (leak checks).
#pragma once

namespace attnscope::bindings {

// Bytes currently allocated on the WASM heap (for leak checks; the heap itself never shrinks).
double heap_in_use();

}  // namespace attnscope::bindings
