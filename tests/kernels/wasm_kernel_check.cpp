// The kernel checks of linear_kernel_check.h and int8_kernel_check.h on the wasm_simd128 builds
// of src/ops/gemm_simd.cpp and src/ops/gemm_int8.cpp (built by the main CMakeLists.txt with
// Emscripten, run under Node by tests/js/kernels.test.js). Prints the implementation and every
// failure; exits 1 on any failure.
#include <cstdio>

#include "int8_kernel_check.h"
#include "linear_kernel_check.h"

int main() {
  long checked = 0, checked_int8 = 0;
  const std::vector<std::string> failures = attnscope::kernel_check::run(&checked);
  const std::vector<std::string> failures_int8 = attnscope::kernel_check::run_int8(&checked_int8);
  for (const std::string& f : failures) std::printf("FAIL %s\n", f.c_str());
  for (const std::string& f : failures_int8) std::printf("FAIL %s\n", f.c_str());
  std::printf("kernel: %s, %ld outputs checked, %zu failures\n", attnscope::ops::simd::implementation(), checked,
              failures.size());
  std::printf("int8 kernel: %ld outputs checked, %zu failures\n", checked_int8, failures_int8.size());
  return failures.empty() && failures_int8.empty() ? 0 : 1;
}
