import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type Options, type ResultPromise } from 'execa';
import { sbevalArgv } from './sbeval-bin.js';

/** The project root. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `sbeval <args>` as a real child process (bin/sbeval.js: dist/, built from the current sources by the globalSetup). */
export async function runSbeval(args: string[], options: Options = {}): Promise<CliResult> {
  const result = await execa(process.execPath, sbevalArgv(args), {
    reject: false,
    cwd: PROJECT_ROOT,
    env: { FORCE_COLOR: '0', ...options.env },
    ...options,
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** `sbeval <args>` as a child process that the test may kill (or watch: its `pid` is node's own). */
export function spawnSbeval(args: string[], options: { env?: Record<string, string> } = {}): ResultPromise {
  return execa(process.execPath, sbevalArgv(args), { cwd: PROJECT_ROOT, reject: false, env: { FORCE_COLOR: '0', ...options.env } });
}

/** Polls until `predicate` holds (generous deadline; never a fixed sleep); fails at once if `child` ends first. */
export async function until(predicate: () => boolean, what: string, child?: ResultPromise, deadlineMs = 120_000): Promise<void> {
  const start = Date.now();
  let ended: string | undefined;
  void child?.then((r) => {
    ended = `exit ${r.exitCode}: ${String(r.stderr).slice(-1000)}`;
  });
  while (!predicate()) {
    if (ended !== undefined) throw new Error(`the command ended before ${what}: ${ended}`);
    if (Date.now() - start > deadlineMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Golden data from the official tools and published results (read-only copy, see test/fixtures/README.md). */
export const GOLDEN = fileURLToPath(new URL('../fixtures/golden/', import.meta.url));

/**
 * The evaluator's 90 reference levels with its own results (chatgpt4pcg/modified-science-birds
 * @84df32e): product data since `sbeval unity calibrate` reads them (calibration/reference-levels,
 * shipped by `npm pack`), read by the tests from the checkout.
 */
export const REFERENCE_LEVELS = fileURLToPath(new URL('../../calibration/reference-levels/', import.meta.url));

/** A fixture label `golden/<path>` (fixture manifests name their inputs so) → the file; `golden/reference-levels/…` lives in REFERENCE_LEVELS. */
export function goldenPath(label: string): string {
  const path = label.replace(/^golden\//, '');
  return path.startsWith('reference-levels/') ? join(REFERENCE_LEVELS, path.slice('reference-levels/'.length)) : join(GOLDEN, path);
}

/**
 * Copies the shipped example competition's sources — each team's `raw/` responses, nothing a stage
 * generated (the README's run command fills `examples/competition` with outputs) — into `dest`.
 */
export function copyExampleSources(dest: string, options: { teams?: string[]; letters?: string[] } = {}): void {
  const example = join(PROJECT_ROOT, 'examples', 'competition');
  for (const team of readdirSync(example)) {
    const raw = join(example, team, 'raw');
    if (team.startsWith('.') || !existsSync(raw)) continue;
    if (options.teams && !options.teams.includes(team)) continue;
    for (const letter of readdirSync(raw)) {
      if (options.letters && !options.letters.includes(letter)) continue;
      cpSync(join(raw, letter), join(dest, team, 'raw', letter), { recursive: true });
    }
  }
}
