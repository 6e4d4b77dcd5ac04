import { describe, expect, it } from 'vitest';
import { parseOrder } from '../../../llm/judges/scoring/order.js';
import type { Rubric } from '../../../llm/judges/scoring/rubric.js';
import { parseRubricAnswer } from '../../../llm/judges/scoring/rubric-answer.js';

/**
 * The answer parsers read an answer of any shape in linear time. Each input below is
 * 1 MiB built to make a backtracking or rescanning parser quadratic (such parsers take ~40 s on a
 * 128k-newline answer); each must parse in under 1 s of CPU time — a
 * generous bound for a linear pass over 1 MiB (a few ms; `npm run bench` measures it:
 * scripts/bench/judges.ts). CPU time, not wall time: a loaded machine stretches the one, not the other.
 */
const MiB = 1024 * 1024;
const fill = (unit: string, prefix = '', suffix = '') => prefix + unit.repeat(Math.floor((MiB - prefix.length - suffix.length) / unit.length)) + suffix;

const RUBRIC: Rubric = { question: 'q', levels: { 100: ['a'], 50: ['b', 'c'], 25: ['d'] } };

const ADVERSARIAL: Record<string, string> = {
  'newlines after a comparison': fill('\n', 'Assistant 1 > '),
  'comparisons that never close a chain': fill('Assistant 1 >\n\n\n\n'),
  'names followed by white space': fill('assistant          '),
  'score tags never closed': fill('<score>'),
  'think tags never closed': fill('<think>'),
  'tags full of white space': fill('<      '),
  'closing tags full of white space': fill('</      '),
  'verdicts followed by white space': fill('[50.1]            ', '<analysis>', '</analysis><score>50</score>'),
  'a score block of white space': fill(' ', '<analysis>x</analysis><score>', '</score>'),
  'a score block of slashes': fill('/ ', '<analysis>x</analysis><score>', '</score>'),
  'repeated verdicts': fill('[50.1] met\n', '<analysis>', '</analysis><score>50</score>'),
  'one long chain of ties': fill('Assistant 1 = ', '', 'Assistant 2'),
};

/** The result of `f` and the CPU time (user + system, ms) this process spent running it. */
function cpuMs<T>(f: () => T): [T, number] {
  const start = process.cpuUsage();
  const result = f();
  const used = process.cpuUsage(start);
  return [result, (used.user + used.system) / 1000];
}

describe('judge answers of 1 MiB built against the parsers', () => {
  for (const [name, text] of Object.entries(ADVERSARIAL)) {
    it(`parses ${name} in under 1 s of CPU time`, () => {
      expect(text.length).toBeGreaterThan(MiB - 64);
      const [order, orderMs] = cpuMs(() => parseOrder(text, 3));
      const [rubric, rubricMs] = cpuMs(() => parseRubricAnswer(text, RUBRIC));
      expect(orderMs, `parseOrder on ${name}: ${orderMs.toFixed(0)} ms`).toBeLessThan(1000);
      expect(rubricMs, `parseRubricAnswer on ${name}: ${rubricMs.toFixed(0)} ms`).toBeLessThan(1000);
      // The answers are still read correctly, not merely quickly.
      expect(order.ok).toBe(false);
      if (name === 'repeated verdicts' || name === 'verdicts followed by white space') expect(rubric).toMatchObject({ ok: true, score: 50 });
      else expect(rubric.ok).toBe(false);
    });
  }

  it('still finds a valid answer at the end of 1 MiB of noise', () => {
    const noise = fill('Assistant 1 > \n<score <think ');
    expect(parseOrder(`${noise}</think>\nAssistant 2 > Assistant 1 = Assistant 3`, 3)).toMatchObject({ ok: true, ranks: [2, 1, 2] });
    const tail = fill('Assistant 1 >\n', '', '. So:\nAssistant 3 > Assistant 1 > Assistant 2');
    expect(parseOrder(tail, 3)).toMatchObject({ ok: true, ranks: [2, 3, 1] });
  });
});
