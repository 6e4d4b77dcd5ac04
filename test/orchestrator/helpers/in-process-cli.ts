import { runCli } from '../../../cli/main.js';

/**
 * `sbeval <args>` through the CLI's own entry (`runCli`: argument parsing, the settings resolution, the
 * root guard, the stages) in this process, output captured: the commands a user types, without a child
 * process per command, so suites that run dozens of them stay short.
 */
export async function sbevalInProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const write = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  process.stdout.write = ((chunk: string | Uint8Array) => out.push(String(chunk)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => err.push(String(chunk)) > 0) as typeof process.stderr.write;
  process.exitCode = undefined;
  try {
    const code = await runCli(['node', 'sbeval', ...args]);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
    process.exitCode = undefined;
  }
}
