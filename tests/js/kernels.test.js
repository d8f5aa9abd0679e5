// The hand-written matrix kernel (src/ops/gemm_simd.h) in its wasm_simd128 build, checked
// against Eigen's product by the same checks the native GoogleTest runs on its generic build
// (tests/kernels/linear_kernel_check.h). web/build-wasm.sh builds the check program.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { path } from './helpers.js';

const check = path('build/wasm/attnscope-kernel-check.cjs');

it('the wasm_simd128 matrix kernels match Eigen (f32) and the exact product (int8) on odd and model shapes', () => {
  if (!existsSync(check)) throw new Error(`${check} is missing: run bash web/build-wasm.sh`);
  let out;
  try {
    out = execFileSync('node', [check], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`kernel check failed:\n${e.stdout}${e.stderr}`);
  }
  expect(out).toMatch(/^kernel: wasm_simd128, \d+ outputs checked, 0 failures$/m);
  expect(Number(out.match(/(\d+) outputs checked/)[1])).toBeGreaterThan(30000);
  // The int8 kernel (src/ops/gemm_int8.h), i32x4.dot_i16x8_s, within its scheme's error bound.
  expect(out).toMatch(/^int8 kernel: \d+ outputs checked, 0 failures$/m);
  expect(Number(out.match(/int8 kernel: (\d+) outputs checked/)[1])).toBeGreaterThan(10000);
});
