import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Physics, ONNX and child-process suites are CPU-heavy; forks isolate native modules (sharp, onnxruntime).
    pool: 'forks',
    // Two test files at a time. Vitest's default on a 2-core machine is one (cores − 1), and many files
    // spend their time waiting on child processes, sockets and browsers: one file at a time left a core
    // idle (docs/benchmarks.md, "Test suite").
    maxWorkers: 2,
    // Each worker runs its files one after another in one process instead of a fresh process per file:
    // a fresh one costs every file a node start and a new import of vitest and the product's modules
    // (60 of the small files: 44 s of CPU isolated, 26 s not). test/helpers/file-isolation.ts puts back
    // what a file changes in the process.
    isolate: false,
    setupFiles: ['test/helpers/file-isolation.ts'],
    testTimeout: 60_000,
    // Commands use the model `sbeval model fetch` cached when no --model is given: tests must not see
    // a developer's cache (child processes inherit this too). Tests that need a cache set their own.
    env: { SBEVAL_CACHE: join(tmpdir(), 'sbeval-tests-no-model-cache') },
    hookTimeout: 120_000,
    // dist/ built from the current sources (the CLI tests run bin/sbeval.js), then one folder per run
    // for what the test files share (the packed package: test/helpers/packed.ts).
    globalSetup: ['test/helpers/built-dist.ts', 'test/helpers/run-scope.ts'],
  },
});
