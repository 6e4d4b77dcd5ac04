import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * vitest globalSetup: one folder per test run, shared by every test file (`inject('sbevalRunDir')`),
 * removed when the run ends — for things worth making once per run, such as the packed and installed
 * package (test/helpers/packed.ts).
 */
declare module 'vitest' {
  export interface ProvidedContext {
    sbevalRunDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'sbeval-test-run-'));
  project.provide('sbevalRunDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
