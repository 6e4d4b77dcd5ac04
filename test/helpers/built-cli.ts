import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { type CliResult, PROJECT_ROOT } from './cli.js';

/**
 * `sbeval <args>` as a user types it: the published entry point `bin/sbeval.js` on the built `dist/`
 * (`npm test` builds it first; after editing the sources, `npm run build`), as a child process.
 */
const BIN = join(PROJECT_ROOT, 'bin', 'sbeval.js');

export interface BuiltOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Kill the command after this long (a command that should end at once but may wait for Ctrl-C). */
  timeoutMs?: number;
}

function built(): string {
  if (!existsSync(join(PROJECT_ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: npm run build (npm test does it)');
  return BIN;
}

export async function runBuilt(args: string[], options: BuiltOptions = {}): Promise<CliResult> {
  const result = await execa(process.execPath, [built(), ...args], {
    reject: false,
    cwd: options.cwd ?? PROJECT_ROOT,
    env: { FORCE_COLOR: '0', ...options.env },
    ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** The built `sbeval` as a child process the test reads from and signals (its `pid` is node's own). */
export function spawnBuilt(args: string[], options: BuiltOptions = {}): ResultPromise {
  return execa(process.execPath, [built(), ...args], { reject: false, cwd: options.cwd ?? PROJECT_ROOT, env: { FORCE_COLOR: '0', ...options.env } });
}
