import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type AttemptLine, Journal } from '../../../llm/judges/journal.js';

const dir = mkdtempSync(join(tmpdir(), 'sbeval-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (key: string, attempt: number, content = `answer ${key}`, fingerprint = 'f'): AttemptLine => ({
  type: 'attempt',
  key,
  fingerprint,
  attempt,
  seed: 6280 + attempt,
  model: 'm',
  ok: true,
  content,
  time: '2026-01-01T00:00:00.000Z',
});

describe('judge journal', () => {
  it('keeps the first answer appended after a torn last line (a writer stopped mid-line)', () => {
    const file = join(dir, 'torn', 'rubric.jsonl');
    new Journal(file).append(line('a', 0));
    // The next answer's line, cut short: no closing brace, no newline.
    appendFileSync(file, JSON.stringify(line('b', 0)).slice(0, 40));
    const resumed = new Journal(file);
    resumed.append(line('c', 0));
    resumed.append(line('d', 0));
    const read = resumed.read(() => 'f').attempts;
    expect([...read.keys()].sort()).toEqual(['a', 'c', 'd']);
    // The torn fragment stays on a line of its own; nothing else is added.
    expect(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
    ).toHaveLength(4);
    expect(resumed.content(read.get('c')![0]!)).toBe('answer c');
  });

  it('adds no empty line to a file that ends cleanly', () => {
    const file = join(dir, 'clean', 'rubric.jsonl');
    new Journal(file).append(line('a', 0));
    new Journal(file).append(line('a', 1));
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(line('a', 0))}\n${JSON.stringify(line('a', 1))}\n`);
    expect(
      new Journal(file)
        .read(() => 'f')
        .attempts.get('a')
        ?.map((a) => a.attempt),
    ).toEqual([0, 1]);
  });

  it("counts only the lines whose fingerprint is the task's current one (a changed level is asked again)", () => {
    const file = join(dir, 'content', 'rubric.jsonl');
    const journal = new Journal(file);
    journal.append(line('T/A/T_A_1', 0, 'old level', 'old'));
    journal.append(line('T/A/T_A_1', 0, 'new level', 'new'));
    const read = new Journal(file).read(() => 'new').attempts.get('T/A/T_A_1')!;
    expect(read).toHaveLength(1);
    expect(journal.content(read[0]!)).toBe('new level');
    expect(new Journal(file).read(() => 'other').attempts.size).toBe(0);
  });

  it('reads a journal with lines over the limit without holding them, and reads texts back by offset', () => {
    const file = join(dir, 'big', 'rubric.jsonl');
    const journal = new Journal(file, 64 * 1024);
    journal.append(line('a', 0, 'é'.repeat(1000)));
    // A 3 MiB line (an answer from before the cap), then more good lines after it, across chunk borders.
    writeFileSync(file, `${JSON.stringify(line('huge', 0, 'x'.repeat(3 * 1024 * 1024)))}\n`, { flag: 'a' });
    for (let i = 0; i < 50; i += 1) journal.append(line(`k${i}`, 0, `${i}:${'y'.repeat(30_000)}`));
    const read = new Journal(file, 64 * 1024).read(() => 'f');
    expect(read.oversized).toBe(1);
    expect(read.attempts.has('huge')).toBe(false);
    expect(read.attempts.size).toBe(51);
    expect(journal.content(read.attempts.get('a')![0]!)).toBe('é'.repeat(1000));
    for (let i = 0; i < 50; i += 1) expect(journal.content(read.attempts.get(`k${i}`)![0]!)).toBe(`${i}:${'y'.repeat(30_000)}`);
    // What stays in memory per attempt is its metadata, not its text.
    expect(JSON.stringify([...read.attempts.values()]).length).toBeLessThan(51 * 400);
  });
});
