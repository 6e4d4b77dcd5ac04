import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { copyExampleSources } from '../../helpers/cli.js';

/** Helpers for the run tests: copies of the example competition, file snapshots, the CLI as a child. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../../orchestrator/cli/main.ts', import.meta.url));

/** A fresh copy of the example competition (optionally only some teams and letters) with a config file. */
export function exampleCopy(options: { teams?: string[]; letters?: string[]; config?: string } = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'sbeval-run-'));
  copyExampleSources(root, options);
  // The example has 3 trials per letter (the official T is 10).
  writeFileSync(join(root, 'sbeval.config.yaml'), options.config ?? 'trials: 3\n');
  return root;
}

/** Every file under `root` (hidden ones included) except `logs/`, as relative path → sha256. */
export function snapshot(root: string, exclude: readonly string[] = ['logs']): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const rel = relative(root, path);
      if (exclude.includes(rel)) continue;
      if (entry.isDirectory()) walk(path);
      else files.set(rel, createHash('sha256').update(readFileSync(path)).digest('hex'));
    }
  };
  walk(root);
  return new Map([...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** `sbeval <args>` from the sources as a child process the test can kill. */
export function spawnSbeval(args: string[], env: Record<string, string> = {}): ResultPromise<{ reject: false; cwd: string; env: Record<string, string> }> {
  return execa(process.execPath, ['--import', 'tsx', MAIN, ...args], { reject: false, cwd: PROJECT_ROOT, env: { FORCE_COLOR: '0', ...env } });
}

/** The run log lines of one run file. */
export function readRunLog(path: string): Array<Record<string, unknown> & { type: string }> {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line));
}

export function runLogs(root: string): string[] {
  try {
    return readdirSync(join(root, 'logs'))
      .filter((f) => f.startsWith('run_') && f.endsWith('.jsonl'))
      .sort()
      .map((f) => join(root, 'logs', f));
  } catch {
    return [];
  }
}

/** Seeded PRNG: the engine's own mulberry32 (one implementation in the project). */
export { mulberry32 as prng } from '../../../bridge/headless/order.js';
