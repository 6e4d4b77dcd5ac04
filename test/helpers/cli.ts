import { execa, type Options } from 'execa';
import { fileURLToPath } from 'node:url';

/** The project root (tests run the CLI from the sources, so no rebuild is needed after an edit). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../orchestrator/cli/main.ts', import.meta.url));

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `sbeval <args>` as a real child process. */
export async function runSbeval(args: string[], options: Options = {}): Promise<CliResult> {
  const result = await execa(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    reject: false,
    cwd: PROJECT_ROOT,
    env: { FORCE_COLOR: '0', ...options.env },
    ...options,
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Golden data from the official tools and published results (read-only copy, see test/fixtures/README.md). */
export const GOLDEN = fileURLToPath(new URL('../fixtures/golden/', import.meta.url));
