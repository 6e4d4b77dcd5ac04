import { describeError, SbevalError } from '../core/errors.js';
import { isMainModule } from '../core/main-module.js';
import { printable } from '../core/printable.js';
import { HeadlessEngine } from './headless/engine.js';
import { headlessCapabilities, runEngineWorker, type WorkerResult } from './worker.js';

/**
 * A headless engine worker as a process of its own: what `sbeval engine` runs, and what the
 * `headless-ws` launcher starts (this module directly, so `bridge/` needs nothing from the CLI above it).
 * The token comes from the environment (`SBEVAL_TOKEN`), never from argv, so `ps` does not show it.
 */
interface HeadlessWorkerOptions {
  url: string;
  token: string;
  instance?: string;
  /** Failed connection attempts in a row before giving up. */
  maxRetries?: number;
  log?: (line: string) => void;
}

/** Runs until the orchestrator says bye or SIGTERM/SIGINT; throws when the handshake is refused or retries run out. */
export async function runHeadlessWorker(options: HeadlessWorkerOptions): Promise<WorkerResult> {
  const log = options.log ?? (() => {});
  const engine = new HeadlessEngine(options.instance);
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    const result = await runEngineWorker({
      url: options.url,
      token: options.token,
      engine,
      capabilities: headlessCapabilities(),
      ...(options.instance ? { instance: options.instance } : {}),
      reconnect: { maxAttempts: options.maxRetries ?? 20 },
      signal: stop.signal,
      log,
    });
    log(`stopped (${result.reason}) after ${result.levelsRun} level run(s) over ${result.connections} connection(s)`);
    return result;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await engine.close();
  }
}

/** argv: `--connect <url> [--instance <name>]` (the launcher's own arguments, not a user interface). */
function parseArgs(argv: string[]): { url: string; instance?: string } {
  let url: string | undefined;
  let instance: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--connect') url = argv[++i];
    else if (argv[i] === '--instance') instance = argv[++i];
    else throw new SbevalError('config', `unknown argument ${argv[i]}`, 'this entry takes --connect <url> [--instance <name>]; people run `sbeval engine`');
  }
  if (!url) throw new SbevalError('config', 'no --connect <url>');
  return { url, ...(instance ? { instance } : {}) };
}

if (isMainModule(import.meta.url)) {
  try {
    const { url, instance } = parseArgs(process.argv.slice(2));
    const token = process.env.SBEVAL_TOKEN;
    if (!token) throw new SbevalError('config', 'no token', 'set SBEVAL_TOKEN to the token the orchestrator printed');
    const prefix = `sbeval engine${instance ? ` ${instance}` : ''}`;
    await runHeadlessWorker({ url, token, ...(instance ? { instance } : {}), log: (line) => process.stderr.write(`${prefix}: ${printable(line)}\n`) });
    process.exitCode = 0;
  } catch (error) {
    process.stderr.write(`sbeval engine: ${printable(describeError(error), { lines: true })}\n`);
    process.exitCode = 2;
  }
}
