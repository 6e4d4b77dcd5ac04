import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { readJsonLines } from '../../../core/json-lines.js';
import { copyExampleSources } from '../../helpers/cli.js';
import { sbevalArgv } from '../../helpers/sbeval-bin.js';

/** Helpers for the run tests: copies of the example competition, file snapshots, the CLI as a child. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

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

/** `sbeval <args>` (bin/sbeval.js) as a child process the test can kill. */
export function spawnSbeval(args: string[], env: Record<string, string> = {}): ResultPromise<{ reject: false; cwd: string; env: Record<string, string> }> {
  return execa(process.execPath, sbevalArgv(args), { reject: false, cwd: PROJECT_ROOT, env: { FORCE_COLOR: '0', ...env } });
}

/**
 * The run log lines of one run file, read as a live run leaves it: a last line still being written is
 * not there yet (core/json-lines.ts); a complete line that is not JSON fails the test.
 */
export function readRunLog(path: string): Array<Record<string, unknown> & { type: string }> {
  const { records, corrupt } = readJsonLines(path);
  if (corrupt.length > 0) throw new Error(`${path}: line ${corrupt[0]!.line} is not JSON (${corrupt[0]!.message})`);
  return records as Array<Record<string, unknown> & { type: string }>;
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

import { mulberry32 as prngOf } from '../../../bridge/headless/order.js';

/**
 * A seeded competition of `teams` team folders (`team00` …) × `letters` × `trials` responses: prose and a
 * fenced block of 3–10 `drop_block` calls around one column (small levels: quick to simulate), with
 * about 1 in 12 answers without code and 1 in 20 with a call past the grid's right edge, so the stages
 * see the official failures too.
 */
export function generatedCompetition(root: string, options: { teams?: number; letters?: string[]; trials?: number; seed?: number } = {}): string {
  const random = prngOf(options.seed ?? 13);
  const blocks = ['b11', 'b31', 'b13'];
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  for (let t = 0; t < (options.teams ?? 10); t += 1) {
    const team = `team${String(t).padStart(2, '0')}`;
    for (const letter of options.letters ?? ['I', 'L']) {
      const dir = join(root, team, 'raw', letter);
      mkdirSync(dir, { recursive: true });
      for (let n = 1; n <= (options.trials ?? 2); n += 1) {
        let text: string;
        if (random() < 1 / 12) text = `The letter ${letter} needs a tall stem; I will describe it instead of writing code.`;
        else {
          const centre = 4 + Math.floor(random() * 12);
          const calls = Array.from(
            { length: 3 + Math.floor(random() * 8) },
            () => `drop_block('${pick(blocks)}', ${centre + Math.floor((random() - 0.5) * 4)})`,
          );
          if (random() < 1 / 20) calls.push(`drop_block('b31', 21)`);
          text = `Here is ${letter}:\n\n\`\`\`python\n${calls.join('\n')}\n\`\`\`\n`;
        }
        writeFileSync(join(dir, `${team}_${letter}_${n}.txt`), text);
      }
    }
  }
  return root;
}
