import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgressDisplay, formatSummaryLines, JsonProgress, PlainProgress, TtyProgress } from '../../orchestrator/progress/index.js';

class Collect {
  text = '';
  write(chunk: string) {
    this.text += chunk;
    return true;
  }
}

/** A clock the test moves by hand. */
function manualClock(start = Date.UTC(2025, 0, 1)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('progress displays', () => {
  it('plain lines: a start line, periodic status only when something changed, notes at once, an end line', () => {
    const out = new Collect();
    const clock = manualClock();
    const display = new PlainProgress(out, 0, clock.now);
    display.start('simulate', 10);
    for (let i = 0; i < 4; i += 1) display.tick('simulate', 'ok', `t/A/t_A_${i}`);
    display.tick('simulate', 'failed', 't/A/t_A_9', 'engine e1 stalled');
    display.tick('simulate', 'skipped');
    clock.advance(2000);
    display.report();
    display.report(); // nothing changed: no second status line
    display.note('simulate', 'engine e1 replaced');
    display.tick('simulate', 'ok');
    clock.advance(1000);
    display.end('simulate');
    display.close();
    const lines = out.text.trimEnd().split('\n');
    expect(lines).toEqual([
      '[2025-01-01T00:00:00.000Z] simulate: started, 10 to do',
      // 5 worked units in 2 s = 2.5/s; 4 left → 1.6 s → "2s".
      '[2025-01-01T00:00:02.000Z] simulate: 6/10 (ok 4, failed 1, skipped 1) 2.5/s, ETA 2s',
      '[2025-01-01T00:00:02.000Z] simulate: engine e1 replaced',
      '[2025-01-01T00:00:03.000Z] simulate: 7/10 (ok 5, failed 1, skipped 1) 2.0/s, done in 3s',
    ]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the terminal codes a piped run must not print.
    expect(out.text).not.toMatch(/\u001b|\r/);
  });

  it('JSON lines: one parseable object per event with running counts', () => {
    const out = new Collect();
    const clock = manualClock();
    const display = new JsonProgress(out, clock.now);
    display.start('extract', 2);
    display.tick('extract', 'ok', 'a/A/a_A_1.txt');
    display.tick('extract', 'failed', 'a/A/a_A_2.txt', 'Code not found.');
    display.note('extract', 'hello');
    display.end('extract');
    const records = out.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.map((r) => r.type)).toEqual(['start', 'tick', 'tick', 'note', 'end']);
    expect(records[2]).toMatchObject({ stage: 'extract', outcome: 'failed', detail: 'Code not found.', done: 2, total: 2 });
    expect(records[4]).toMatchObject({ ok: 1, failed: 1, skipped: 0 });
    expect(records.every((r) => r.time === '2025-01-01T00:00:00.000Z')).toBe(true);
  });

  it('live bars on a terminal: a bar per stage with its counts, notes above', () => {
    const stream = Object.assign(new PassThrough(), {
      isTTY: true,
      columns: 120,
      rows: 40,
      cursorTo() {},
      moveCursor() {},
      clearLine() {},
      clearScreenDown() {},
    });
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const display = new TtyProgress(stream);
    display.start('extract', 3);
    display.start('simulate', 5);
    display.tick('extract', 'ok');
    display.tick('extract', 'failed', undefined, 'Code not found.');
    display.tick('simulate', 'ok');
    display.note('simulate', 'engine e1 stalled, retrying L1 on e2');
    display.end('extract');
    display.close();
    expect(text).toMatch(/extract\s+\S*[█░]+\S* 2\/3 \| ok 1 failed 1 skipped 0/);
    expect(text).toMatch(/simulate\s+\S*[█░]+\S* 1\/5 \| ok 1 failed 0 skipped 0/);
    expect(text).toContain('simulate: engine e1 stalled, retrying L1 on e2');
  });

  it('picks plain lines when the stream is not a terminal and JSON with --json', () => {
    const plain = createProgressDisplay({ stream: Object.assign(new PassThrough(), { isTTY: false }) });
    expect(plain).toBeInstanceOf(PlainProgress);
    plain.close();
    const json = createProgressDisplay({ json: true });
    expect(json).toBeInstanceOf(JsonProgress);
    json.close();
  });

  it('summarises each stage with failures per reason, most frequent first', () => {
    const clock = manualClock();
    const display = new JsonProgress(new Collect(), clock.now);
    display.start('convert', 4);
    display.tick('convert', 'failed', undefined, 'Width boundary is intruded.');
    display.tick('convert', 'failed', undefined, 'Height boundary is intruded.');
    display.tick('convert', 'failed', undefined, 'Height boundary is intruded.');
    display.tick('convert', 'ok');
    clock.advance(1000);
    display.end('convert');
    expect(formatSummaryLines(display.tallies(), clock.now())).toEqual([
      'convert: 4/4 (ok 1, failed 3, skipped 0) 4.0/s, done in 1s',
      '  2 × Height boundary is intruded.',
      '  1 × Width boundary is intruded.',
    ]);
  });
});
