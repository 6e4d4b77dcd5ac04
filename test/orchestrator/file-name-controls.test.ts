import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSbeval } from '../helpers/cli.js';
import { exampleCopy } from './helpers/competition.js';

/**
 * A file name is written into the official logs line by line: a response named with a newline and a
 * log line after it would forge a "Succeed" line in `intermediate_log`. Such names are refused, as
 * folder names with control characters are, through the real CLI: exit 2 (bad input), one line that shows the
 * name escaped, no log that holds the forged line.
 */
const FORGED = '[2026-01-01T00:00:00.000Z] Processing - team: BlockSmith - character: I - trial: BlockSmith_I_9.txt - Succeed';

function logsOf(root: string): string {
  const dir = join(root, 'logs');
  return existsSync(dir)
    ? readdirSync(dir)
        .map((f) => readFileSync(join(dir, f), 'utf8'))
        .join('\n')
    : '';
}

describe('file names with control characters', () => {
  for (const [label, name] of [
    ['a newline', `BlockSmith_I_2.txt\n${FORGED}.txt`],
    ['an escape sequence', 'BlockSmith_I_2\u001b]0;owned\u0007.txt'],
  ] as const) {
    it(`a response file name with ${label} is refused with a one-line reason, and no log line is forged`, async () => {
      const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I'], config: 'trials: 1\n' });
      const raw = join(root, 'BlockSmith', 'raw', 'I');
      writeFileSync(join(raw, name), readFileSync(join(raw, 'BlockSmith_I_1.txt')));
      const run = await runSbeval(['run', root, '--workers', '1']);
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toContain(JSON.stringify(name));
      expect(run.stderr).not.toContain('\u001b');
      // The forged text may show inside the escaped name, never as a line of its own.
      expect(run.stderr.split('\n').filter((l) => l.startsWith(FORGED.slice(0, 10)))).toEqual([]);
      expect(
        logsOf(root)
          .split('\n')
          .filter((l) => l.startsWith(FORGED.slice(0, 10))),
      ).toEqual([]);
      expect(logsOf(root)).not.toContain('\u001b');
    }, 120_000);
  }
});
