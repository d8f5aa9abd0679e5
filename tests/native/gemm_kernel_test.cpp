// The matrix kernel of ops::linear (src/ops/gemm_simd.h) against Eigen's product. Natively this
// runs the kernel's generic-vector build; tests/js/kernels.test.js runs the same checks on the
// wasm_simd128 build.
#include <gtest/gtest.h>

#include "../kernels/linear_kernel_check.h"
#include "ops/gemm_simd.h"
#include "ops/ops.h"

namespace attnscope {
namespace {

TEST(GemmKernel, MatchesEigenOnOddAndModelShapes) {
  long checked = 0;
  const std::vector<std::string> failures = kernel_check::run(&checked);
  for (const std::string& f : failures) ADD_FAILURE() << f;
  EXPECT_GT(checked, 30000);
  std::printf("kernel: %s, %ld outputs checked\n", ops::simd::implementation(), checked);
}

TEST(GemmKernel, LinearUsesTheSelectedPath) {
  const Matrix x = kernel_check::values(2, 37, 5), w = kernel_check::values(11, 37, 6);
  const RowVector b = kernel_check::values(1, 11, 7);
  ASSERT_EQ(ops::matmul_path(), ops::MatmulPath::Kernel);
  const Matrix kernel = ops::linear(x, w, b);
  ops::set_matmul_path(ops::MatmulPath::Eigen);
  const Matrix eigen = ops::linear(x, w, b);
  ops::set_matmul_path(ops::MatmulPath::Kernel);
  EXPECT_TRUE(eigen == ops::linear_reference(x, w, b));
  // Two float sums of 37 products: within 37·eps·Σ|products| of each other.
  const Matrix magnitude = x.cwiseAbs() * w.cwiseAbs().transpose();
  EXPECT_TRUE(((kernel - eigen).cwiseAbs().array() <= 37 * 2.4e-7f * magnitude.array()).all());
  Matrix expected(2, 11);
  ops::simd::linear(x.data(), 2, 37, w.data(), 11, 37, b.data(), expected.data(), 11);
  EXPECT_TRUE(kernel == expected);
}

TEST(GemmKernel, LinearRejectsMismatchedShapes) {
  const Matrix x = Matrix::Ones(1, 4), w = Matrix::Ones(3, 5);
  EXPECT_THROW(ops::linear(x, w, RowVector::Zero(3)), Error);
  EXPECT_THROW(ops::linear(Matrix::Ones(1, 5), w, RowVector::Zero(4)), Error);
}

}  // namespace
}  // namespace attnscope
