import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJsonLines, readJsonLines, wholeLines } from '../../core/json-lines.js';
import { readRunLog } from '../orchestrator/helpers/competition.js';

const dir = mkdtempSync(join(tmpdir(), 'sbeval-json-lines-'));

describe('reading a file another process appends to', () => {
  it('treats an unterminated last line as not yet written', () => {
    const file = join(dir, 'torn.jsonl');
    writeFileSync(file, '{"type":"start"}\n{"type":"level-done","level":"A"}\n{"type":"level-do');
    const lines = readJsonLines(file);
    expect(lines.records).toEqual([{ type: 'start' }, { type: 'level-done', level: 'A' }]);
    expect(lines.corrupt).toEqual([]);
    expect(lines.pending).toBe('{"type":"level-do');
    expect(readRunLog(file).map((l) => l.type)).toEqual(['start', 'level-done']);

    // The writer finishes the line: the next read has it.
    appendFileSync(file, 'ne","level":"B"}\n');
    expect(readRunLog(file).map((l) => l.level)).toEqual([undefined, 'A', 'B']);
    expect(readJsonLines(file).pending).toBe('');
  });

  it('reports a complete line that does not parse, with its line number', () => {
    const file = join(dir, 'corrupt.jsonl');
    writeFileSync(file, '{"type":"start"}\n\n{"type":"level-done",\n{"type":"end"}\n');
    const lines = readJsonLines(file);
    expect(lines.records).toEqual([{ type: 'start' }, { type: 'end' }]);
    expect(lines.corrupt).toHaveLength(1);
    expect(lines.corrupt[0]!.line).toBe(3);
    expect(() => readRunLog(file)).toThrow(/corrupt\.jsonl: line 3 is not JSON/);
  });

  it('has no lines for a file not created yet, or for text without a newline', () => {
    expect(readJsonLines(join(dir, 'absent.jsonl'))).toEqual({ records: [], corrupt: [], pending: '' });
    expect(wholeLines('{"a":1}')).toEqual({ lines: [], pending: '{"a":1}' });
    expect(parseJsonLines('')).toEqual({ records: [], corrupt: [], pending: '' });
  });
});
