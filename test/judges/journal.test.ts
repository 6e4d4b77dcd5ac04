import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal, type AttemptLine } from '../../orchestrator/judges/journal.js';

const dir = mkdtempSync(join(tmpdir(), 'sbeval-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (key: string, attempt: number): AttemptLine => ({ type: 'attempt', key, fingerprint: 'f', attempt, seed: 6280 + attempt, model: 'm', ok: true, content: `answer ${key}`, time: '2026-01-01T00:00:00.000Z' });

describe('judge journal', () => {
  it('keeps the first answer appended after a torn last line (a writer stopped mid-line)', () => {
    const file = join(dir, 'torn', 'rubric.jsonl');
    new Journal(file).append(line('a', 0));
    // The next answer's line, cut short: no closing brace, no newline.
    appendFileSync(file, JSON.stringify(line('b', 0)).slice(0, 40));
    const resumed = new Journal(file);
    resumed.append(line('c', 0));
    resumed.append(line('d', 0));
    const read = resumed.read(() => 'f');
    expect([...read.keys()].sort()).toEqual(['a', 'c', 'd']);
    // The torn fragment stays on a line of its own; nothing else is added.
    expect(readFileSync(file, 'utf8').split('\n').filter((l) => l !== '')).toHaveLength(4);
  });

  it('adds no empty line to a file that ends cleanly', () => {
    const file = join(dir, 'clean', 'rubric.jsonl');
    new Journal(file).append(line('a', 0));
    new Journal(file).append(line('a', 1));
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(line('a', 0))}\n${JSON.stringify(line('a', 1))}\n`);
    expect(new Journal(file).read(() => 'f').get('a')?.map((a) => a.attempt)).toEqual([0, 1]);
  });
});
