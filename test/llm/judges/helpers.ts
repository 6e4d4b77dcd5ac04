import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeCall } from '../../helpers/fake-ollama.js';

/** Shared with the other CLI tests that kill a run midway. */
export { spawnSbeval, until } from '../../helpers/cli.js';

export interface JournalEntry {
  key: string;
  attempt: number;
  seed: number;
  ok: boolean;
  content: string;
  reason?: string;
  promptTokens?: number;
  completionTokens?: number;
  durationMs?: number;
  host?: string;
  digest?: string;
  bytes?: number;
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
