import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../helpers/csv.js';
import { type TeamSpec, writeTeam } from '../scoring/write-team.js';
import { PROJECT_ROOT, spawnSbeval } from './helpers/competition.js';

/**
 * Team names are folder names, so they can be anything a file system allows: a spreadsheet must not
 * run them as formulas (OWASP CSV injection) and a Markdown or HTML viewer must show them as text.
 * Through the real CLI, on the files users open: result/trials.csv and failures.md (`run`), the
 * official CSVs and report.md/report.html (`score`).
 */
const FORMULAS = ['=HYPERLINK("x")', '+cmd', '@SUM(1+1)', '-2+3'];
const MARKUP = '<img src=x onerror=alert(1)> | *b*';
const ESCAPED_MARKUP = '&lt;img src=x onerror=alert(1)&gt; \\| \\*b\\*';
const TRIGGER = /^[=+\-@\t\r]/;

/** Every cell a spreadsheet would read: formula-leading only when it is a number. */
function expectNoFormula(csv: string, file: string): string[][] {
  const rows = parseCsv(csv);
  for (const row of rows) for (const cell of row) if (TRIGGER.test(cell)) expect(Number.isFinite(Number(cell)), `${file}: ${JSON.stringify(cell)}`).toBe(true);
  return rows;
}

/** Cells of a Markdown table row (split on `|` that is not backslash-escaped). */
function markdownCells(line: string): string[] {
  return line
    .replace(/^\|\s?|\s?\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

describe('text from outside in sbeval outputs', () => {
  it('run: trials.csv neutralizes formula-leading team names; failures.md keeps HTML and | as text', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-escape-'));
    const response = readFileSync(join(PROJECT_ROOT, 'examples', 'competition', 'BlockSmith', 'raw', 'I', 'BlockSmith_I_1.txt'), 'utf8');
    for (const team of [...FORMULAS, MARKUP]) {
      mkdirSync(join(root, team, 'raw', 'I'), { recursive: true });
      writeFileSync(join(root, team, 'raw', 'I', `${team}_I_1.txt`), response);
    }
    writeFileSync(join(root, 'sbeval.config.yaml'), 'trials: 1\n');
    const run = await spawnSbeval(['run', root, '--workers', '1']);
    expect(run.exitCode, String(run.stderr)).toBe(0);

    const rows = expectNoFormula(readFileSync(join(root, 'result', 'trials.csv'), 'utf8'), 'trials.csv');
    expect(rows.every((r) => r.length === 8)).toBe(true);
    const teams = rows.slice(1).map((r) => r[0]);
    for (const team of FORMULAS) expect(teams).toContain(`'${team}`);
    expect(teams).toContain(MARKUP);

    const failures = readFileSync(join(root, 'result', 'failures.md'), 'utf8');
    expect(failures).not.toContain('<img');
    const table = failures.split('\n').filter((l) => l.startsWith('|'));
    const width = markdownCells(table[0]!).length;
    for (const line of table) expect(markdownCells(line), line).toHaveLength(width);
    expect(table.some((l) => markdownCells(l)[0] === ESCAPED_MARKUP)).toBe(true);
  }, 180_000);

  it('score: the official CSVs neutralize formulas (numbers and ordinary names untouched); the report shows names as text', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-escape-'));
    const spec: TeamSpec = {
      A: { stability: [1, 0.5], similarity: [0.75, 0.25], diversity: 0.5 },
      B: { stability: [0, 1], similarity: [0.5, 0.125], diversity: 0.25 },
    };
    for (const team of [...FORMULAS, MARKUP, 'plain_team']) writeTeam(root, team, spec);
    const score = await spawnSbeval(['score', root, '--rules', '2024', '--trials', '2']);
    expect(score.exitCode, String(score.stderr)).toBe(0);

    for (const file of ['trial_scores.csv', 'character_scores.csv', 'prompt_scores_ranks.csv']) {
      const text = readFileSync(join(root, 'result', file), 'utf8');
      const rows = expectNoFormula(text, file);
      const names = new Set(rows.slice(1).map((r) => r[0]));
      for (const team of FORMULAS) expect(names.has(`'${team}`), `${file}: ${team}`).toBe(true);
      // json2csv's quoting as the official files have it, for an ordinary name.
      expect(text).toContain('"plain_team",');
    }
    // sbeval's own uncertainty files (RFC 4180): the same neutralisation.
    for (const file of ['score_intervals.csv', 'rank_probabilities.csv']) {
      const names = new Set(
        expectNoFormula(readFileSync(join(root, 'result', file), 'utf8'), file)
          .slice(1)
          .map((r) => r[0]),
      );
      for (const team of FORMULAS) expect(names.has(`'${team}`), `${file}: ${team}`).toBe(true);
      expect(names.has(MARKUP), file).toBe(true);
    }
    const trialScores = readFileSync(join(root, 'result', 'trial_scores.csv'), 'utf8');
    expect(trialScores).toContain(`"'=HYPERLINK(""x"")","A",1,`);

    const md = readFileSync(join(root, 'result', 'report.md'), 'utf8');
    const html = readFileSync(join(root, 'result', 'report.html'), 'utf8');
    expect(md).not.toContain('<img');
    expect(html).not.toContain('<img src=x');
    const rowsWithMarkup = md.split('\n').filter((l) => l.startsWith('|') && l.includes('onerror'));
    expect(rowsWithMarkup.length).toBeGreaterThan(0);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; | *b*');
    for (const line of rowsWithMarkup) {
      expect(markdownCells(line)[0]?.endsWith(ESCAPED_MARKUP) || markdownCells(line).includes(ESCAPED_MARKUP), line).toBe(true);
    }
  }, 180_000);
});
