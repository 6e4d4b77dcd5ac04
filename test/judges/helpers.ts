import { execa, type ResultPromise } from 'execa';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../helpers/cli.js';
import type { FakeCall } from '../helpers/fake-ollama.js';

const MAIN = fileURLToPath(new URL('../../orchestrator/cli/main.ts', import.meta.url));

/** `sbeval <args>` as a child process that the test may kill. */
export function spawnSbeval(args: string[]): ResultPromise {
  return execa(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: PROJECT_ROOT, reject: false, env: { FORCE_COLOR: '0' } });
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

export interface JournalEntry {
  key: string;
  attempt: number;
  seed: number;
  ok: boolean;
  content: string;
  reason?: string;
}

export function readJournal(path: string): JournalEntry[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as JournalEntry];
      } catch {
        return [];
      }
    });
}

export function userText(call: FakeCall): string {
  return call.messages.find((m) => m.role === 'user')?.content ?? '';
}

/** Every file under `dir` (relative paths), sorted. */
export function filesUnder(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]))
    .sort();
}
