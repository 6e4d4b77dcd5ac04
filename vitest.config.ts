import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Physics, ONNX and child-process suites are CPU-heavy; forks isolate native modules (sharp, onnxruntime).
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
