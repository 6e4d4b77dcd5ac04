import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * Something the test files of one run share, made once (test/helpers/run-scope.ts gives the run its
 * folder): the first caller builds `<run folder>/<name>` while holding a lock folder, the others wait
 * for it. A build that throws is remembered, so the others fail at once with its message.
 */
export async function runShared(name: string, build: (dir: string) => Promise<void> | void, deadlineMs = 15 * 60_000): Promise<string> {
  const dir = join(inject('sbevalRunDir'), name);
  const done = `${dir}.done`;
  const failed = `${dir}.failed`;
  const lock = `${dir}.lock`;
  const start = Date.now();
  while (!existsSync(done)) {
    if (existsSync(failed)) throw new Error(`${name} failed earlier in this run:\n${readFileSync(failed, 'utf8')}`);
    if (Date.now() - start > deadlineMs) throw new Error(`gave up waiting for ${dir}`);
    if (takeLock(lock)) {
      try {
        if (!existsSync(done)) {
          rmSync(dir, { recursive: true, force: true });
          mkdirSync(dir, { recursive: true });
          try {
            await build(dir);
          } catch (error) {
            writeFileSync(failed, String((error as Error).stack ?? error));
            throw error;
          }
          writeFileSync(done, '');
        }
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
      continue;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return dir;
}

function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    return false;
  }
}
