// The WASM heap as JS sees it: how much is in use (leak checks) and warming it up while a model
// downloads.
#pragma once

namespace attnscope::bindings {

// Bytes currently allocated on the WASM heap (for leak checks; the heap itself never shrinks).
double heap_in_use();

// Makes the heap hold at least `bytes` of free memory whose pages the system has already mapped:
// grows it as a model's load would, writes a byte per 4 KiB page and frees it all again (the
// allocator keeps the pages). The JS wrapper calls it while a model downloads, so that the
// load's first touches of fresh memory, ~20 us each on some virtual machines (a 12 MB model's
// load took ~20,000 of them), happen while the thread would wait for the network.
// Not enough memory: nothing is done (the load reports its own error).
void warm_heap(double bytes);

}  // namespace attnscope::bindings
