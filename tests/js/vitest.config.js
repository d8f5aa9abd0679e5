import { defineConfig } from 'vitest/config';

// A test file that throws while loading (a missing fixture, say) is a failed file and fails the
// run (exit 1, "Test Files 1 failed"), though its tests are missing from the count; a file with
// no tests fails too (passWithNoTests stays false).
export default defineConfig({
  test: {
    passWithNoTests: false,
    include: ['tests/js/**/*.test.js', 'tests/browser/**/*.test.js'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
