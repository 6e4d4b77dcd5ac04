import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BigNumber from 'bignumber.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stabilityTag, writeStabilityJson } from '../../scoring/formats/index.js';
import { runSbeval } from '../helpers/cli.js';
import { countsFor, parseCsv } from './golden-competition.js';
import { writeTeam } from './write-team.js';

/**
 * Inconsistent inputs: the official script writes nothing at all when a team's folders hold different
 * numbers of files and trusts every value. Here each problem is a warning naming the file and saying
 * what was assumed, and the results are written.
 */
describe('inconsistent inputs become warnings, never a silent empty result', () => {
  let root: string;
  let run: { exitCode: number; stdout: string; stderr: string };
  const ten = (v: number) => Array.from({ length: 10 }, () => v);

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'sbeval-score-warn-'));
    writeTeam(root, 'good', { A: { stability: ten(1), similarity: ten(0.5), diversity: 0.25 } });
    // dup: stability of A lists trial 3 twice (0.5 first, then 1) and a trial 11; similarity holds 1.5 and Infinity.
    writeTeam(root, 'dup', { A: { stability: ten(0.75), similarity: ten(0.25), diversity: 0.5 } });
    const entries = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((i) => ({
      tag: stabilityTag('dup', 'A', `dup_A_${i}.xml`),
      score: i === 3 ? 0.5 : 0.75,
      ...countsFor(i === 3 ? 0.5 : 0.75),
    }));
    entries.push({ tag: stabilityTag('dup', 'A', 'dup_A_3.xml'), score: 1, ...countsFor(1) });
    entries.push({ tag: stabilityTag('dup', 'A', 'dup_A_11.xml'), score: 1, ...countsFor(1) });
    writeFileSync(join(root, 'dup', 'stability', 'A.json'), writeStabilityJson(entries));
    const simPath = join(root, 'dup', 'similarity', 'A.json');
    const sim = readFileSync(simPath, 'utf8').split('\n');
    const similarityLines = sim.map((l, i) => [l, i] as const).filter(([l]) => l.includes('"similarity": '));
    const [first, second] = similarityLines;
    sim[first![1] as number] = (first![0] as string).replace(/: .*$/, ': 1.5');
    sim[second![1] as number] = (second![0] as string).replace(/: .*$/, ': 1e999');
    writeFileSync(simPath, sim.join('\n'));
    // broken: an unreadable stability file and no diversity folder at all.
    writeTeam(root, 'broken', { A: { stability: ten(1), similarity: ten(0.5) }, B: { stability: ten(1), similarity: ten(0.5) } });
    writeFileSync(join(root, 'broken', 'stability', 'B.json'), '{"dataCount": 10, "rate": 1.0, "raws": [');
    // empty: a team folder without any file (counts in P).
    mkdirSync(join(root, 'empty'));
    run = await runSbeval(['score', root, '--rules', '2024']);
  }, 120_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('still writes every result file and exits 0', () => {
    expect(run.exitCode, run.stderr).toBe(0);
    for (const name of ['constants.json', 'trial_scores.csv', 'character_scores.csv', 'prompt_scores_ranks.csv', 'report.md', 'report.html']) {
      expect(existsSync(join(root, 'result', name)), name).toBe(true);
    }
  });

  it('names the file and the assumption for each problem', () => {
    const lines = run.stderr.split('\n');
    const has = (code: string, file: string, what: RegExp) =>
      expect(
        lines.some((l) => l.includes(`[${code}]`) && l.includes(file) && what.test(l)),
        `${code} ${file}`,
      ).toBe(true);
    has('duplicate-trial', join('dup', 'stability', 'A.json'), /trial 3 appears twice.*first entry is used/);
    has('trial-out-of-range', join('dup', 'stability', 'A.json'), /dup_A_11\.xml.*not 1\.\.10/);
    has('out-of-range', join('dup', 'similarity', 'A.json'), /1\.5, outside \[0, 1\]: used as is/);
    has('not-finite', join('dup', 'similarity', 'A.json'), /Infinity: taken as 0/);
    has('unreadable', join('broken', 'stability', 'B.json'), /not valid JSON.*treated as missing/);
    has('file-count', 'broken', /stability 2, similarity 2, diversity 0.*official script would stop/);
    has('missing-file', join('broken', 'diversity', 'A.json'), /every A score of broken is 0/);
    has('no-files', 'empty', /still counts in P/);
    expect(readFileSync(join(root, 'result', 'report.md'), 'utf8')).toContain(join('broken', 'stability', 'B.json'));
  });

  it('computes what the warnings say it assumed', () => {
    const [, ...trials] = parseCsv(readFileSync(join(root, 'result', 'trial_scores.csv'), 'utf8'));
    const row = (team: string, ch: string, trial: number) => trials.find((r) => r[0] === team && r[1] === ch && r[2] === String(trial)) as string[];
    expect(row('dup', 'A', 3)[4]).toBe('0.5'); // first of the duplicates
    expect(row('dup', 'A', 1)[5]).toBe('1.5'); // used as is
    expect(row('dup', 'A', 2)[5]).toBe('0'); // Infinity → 0
    expect(trials.some((r) => r[0] === 'dup' && r[2] === '11')).toBe(false);
    expect(row('broken', 'B', 1)[4]).toBe('0'); // unreadable → missing
    expect(row('broken', 'A', 1)[6]).toBe('0'); // no diversity file

    // Weights use every entry of every file (the duplicate and trial 11 included), P = 4 teams.
    const constants = JSON.parse(readFileSync(join(root, 'result', 'constants.json'), 'utf8'));
    const a = constants.weights.find((w: { character: string }) => w.character === 'A');
    const BN = BigNumber.clone({ DECIMAL_PLACES: 20, ROUNDING_MODE: BigNumber.ROUND_HALF_UP });
    const staSum = new BN(10) // good
      .plus(new BN(0.75).times(9).plus(0.5).plus(1).plus(1)) // dup: 10 trials + duplicate + trial 11
      .plus(10); // broken A
    expect(a.weightStability).toBe(BigNumber.max(new BN(1).minus(staSum.div(40)), new BN(1).div(26)).toFixed());
    const simSum = new BN(5).plus(new BN(0.25).times(8).plus(1.5)).plus(5); // Infinity counts 0
    expect(a.weightSimilarity).toBe(BigNumber.max(new BN(1).minus(simSum.div(40)), new BN(1).div(26)).toFixed());
  });

  it('refuses a root without teams with a clear error', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'sbeval-score-none-'));
    try {
      const r = await runSbeval(['score', empty, '--rules', '2024']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/no team folders/);
      expect(existsSync(join(empty, 'result'))).toBe(false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
