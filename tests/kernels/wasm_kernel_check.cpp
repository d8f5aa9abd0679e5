// The kernel checks of linear_kernel_check.h on the wasm_simd128 build of src/ops/gemm_simd.cpp
// (built by the main CMakeLists.txt with Emscripten, run under Node by tests/js/kernels.test.js).
// Prints the implementation and every failure; exits 1 on any failure.
#include <cstdio>

#include "linear_kernel_check.h"

int main() {
  long checked = 0;
  const std::vector<std::string> failures = attnscope::kernel_check::run(&checked);
  for (const std::string& f : failures) std::printf("FAIL %s\n", f.c_str());
  std::printf("kernel: %s, %ld outputs checked, %zu failures\n", attnscope::ops::simd::implementation(), checked,
              failures.size());
  return failures.empty() ? 0 : 1;
}
