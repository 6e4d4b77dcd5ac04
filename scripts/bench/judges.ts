import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AttemptLine, Journal } from '../../llm/judges/journal.js';
import { parseOrder } from '../../llm/judges/scoring/order.js';
import type { Rubric } from '../../llm/judges/scoring/rubric.js';
import { parseRubricAnswer } from '../../llm/judges/scoring/rubric-answer.js';
import type { BenchSuite } from './suite.js';

/**
 * The judges' bounds: the answer parsers on 1 MiB answers built against them
 * (median of 5 runs each; a parser that rescans takes ~40 s on a 128k-newline answer, so they are
 * one-pass), and a resume reading a journal of 64 answers of 1 MiB plus one 48 MiB line (longer than
 * the answer cap allows): time and this process's RSS growth (the texts stay on disk).
 */
const MiB = 1024 * 1024;
const fill = (unit: string, prefix = '', suffix = '') => prefix + unit.repeat(Math.floor((MiB - prefix.length - suffix.length) / unit.length)) + suffix;
const RUBRIC: Rubric = { question: 'q', levels: { 100: ['a'], 50: ['b', 'c'], 25: ['d'] } };

const SHAPES: Record<string, string> = {
  '128k newlines after a comparison': `Assistant 1 > ${'\n'.repeat(128 * 1024)}`,
  'comparisons that never close a chain': fill('Assistant 1 >\n\n\n\n'),
  'score tags never closed': fill('<score>'),
  'tags full of white space': fill('<      '),
  'verdicts followed by white space': fill('[50.1]            ', '<analysis>', '</analysis><score>50</score>'),
  'repeated verdicts': fill('[50.1] met\n', '<analysis>', '</analysis><score>50</score>'),
};

function median(run: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const t = performance.now();
    run();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[2]!;
}

function resume(): Record<string, string | number> {
  const dir = mkdtempSync(join(tmpdir(), 'sbeval-bench-journal-'));
  try {
    const file = join(dir, 'rubric.jsonl');
    const journal = new Journal(file);
    const line = (key: string, content: string): AttemptLine => ({
      type: 'attempt',
      key,
      fingerprint: 'f',
      attempt: 0,
      seed: 1,
      model: 'm',
      ok: true,
      content,
      time: '',
    });
    writeFileSync(file, `${JSON.stringify(line('old', 'x'.repeat(48 * MiB)))}\n`);
    for (let i = 0; i < 64; i += 1) journal.append(line(`k${i}`, `${i}`.padEnd(MiB, 'y')));
    global.gc?.();
    const before = process.memoryUsage().rss;
    const t = performance.now();
    const read = new Journal(file, 4 * MiB).read(() => 'f');
    const ms = performance.now() - t;
    const growth = (process.memoryUsage().rss - before) / MiB;
    return {
      case: 'resume: 64 × 1 MiB answers + one 48 MiB line',
      parser: 'Journal.read',
      ms: Math.round(ms),
      'attempts kept': read.attempts.size,
      'lines skipped': read.oversized,
      'rss growth MB': Number(growth.toFixed(1)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const judgesSuite: BenchSuite = {
  name: 'judges',
  description: 'judge answer parsers on 1 MiB adversarial answers; a resume over a 112 MiB journal',
  async run() {
    const rows: Array<Record<string, string | number>> = [];
    for (const [name, text] of Object.entries(SHAPES)) {
      rows.push({
        case: name,
        parser: 'parseOrder',
        ms: Number(median(() => parseOrder(text, 3)).toFixed(1)),
        'attempts kept': '',
        'lines skipped': '',
        'rss growth MB': '',
      });
      rows.push({
        case: name,
        parser: 'parseRubricAnswer',
        ms: Number(median(() => parseRubricAnswer(text, RUBRIC)).toFixed(1)),
        'attempts kept': '',
        'lines skipped': '',
        'rss growth MB': '',
      });
    }
    rows.push(resume());
    return rows;
  },
};
