import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BigNumber from 'bignumber.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN, runSbeval } from '../helpers/cli.js';
import { buildCompetition, parseCsv, readPublishedTrials } from './golden-competition.js';

/**
 * The published results of 2024 and 2023, reproduced digit for digit by the real CLI from
 * competition folders in the official per-character formats (built from the published trial scores).
 */

interface Published {
  teamName: string;
  normalizedPromptScore: number;
  promptScore: number;
  rank: number;
}

/** The website lists the baselines under display names; the result CSVs use the folder names. */
const DISPLAY_NAMES: Record<string, string> = {
  'Strong Baseline (Zero-Shot Multi-turn)': 'baseline_zero_shot_multi_turn',
  'Weak Baseline (Zero-Shot)': 'baseline_zero_shot',
};

function goldenText(year: string, name: string): string {
  return readFileSync(join(GOLDEN, 'scoring', year, name), 'utf8');
}

/**
 * The published number is either `Number(ours)` (2023) or `ours` rounded HALF_UP to as many decimals
 * as the published text shows (2024).
 */
function agreesWithPublished(ours: string, publishedText: string): boolean {
  if (Number(ours) === Number(publishedText)) return true;
  const decimals = publishedText.split('.')[1]?.length ?? 0;
  return new BigNumber(ours).decimalPlaces(decimals, BigNumber.ROUND_HALF_UP).isEqualTo(publishedText);
}

function expectRanksMatch(year: string, ranksCsv: string): void {
  // result.json (the website's table) holds the scored entries (rank ≥ 1, or −1 for baselines) in
  // ranking order, then the disqualified ones (−2). Its numbers are our exact decimals shortened
  // (2023: to JavaScript numbers; 2024: to 15 decimals for the normalised score, 17 for the prompt
  // score), so each is compared at the precision it shows.
  const text = goldenText(year, 'result.json');
  const published = (JSON.parse(text) as Published[]).filter((p) => p.rank !== -2);
  const normalizedTexts = [...text.matchAll(/"normalizedPromptScore": ([-0-9.e]+)/g)].map((m) => m[1] as string);
  const promptTexts = [...text.matchAll(/"promptScore": ([-0-9.e]+)/g)].map((m) => m[1] as string);
  const [header, ...rows] = parseCsv(ranksCsv);
  expect(header).toEqual(['team', 'normalizedPromptScore', 'promptScore', 'rank']);
  expect(rows).toHaveLength(published.length);
  rows.forEach((row, i) => {
    const p = published[i] as Published;
    expect(row[0]).toBe(DISPLAY_NAMES[p.teamName] ?? p.teamName);
    expect(agreesWithPublished(row[1] as string, normalizedTexts[i] as string), `${row[1]} vs ${normalizedTexts[i]}`).toBe(true);
    expect(agreesWithPublished(row[2] as string, promptTexts[i] as string), `${row[2]} vs ${promptTexts[i]}`).toBe(true);
    expect(row[3]).toBe(String(i + 1));
  });
}

describe('2024 rules against the published ChatGPT4PCG 2 results', () => {
  let root: string;
  let teams: string[];
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'sbeval-score-2024-'));
    teams = buildCompetition(root, readPublishedTrials(goldenText('2024', 'trial_scores.csv')), { diversity: true }).teams;
    // The published files were written on Windows: CRLF (the default is this system's line end, as the official script's).
    const run = await runSbeval(['score', root, '--rules', '2024', '--eol', 'crlf']);
    // The settings line, then the only remark: the team with no files (it still counts in P, as officially).
    expect(run.stderr.split('\n')).toEqual([
      expect.stringMatching(/^sbeval score: rules 2024 \(flag\), T 10 \(default\), /),
      'score: warning [no-files] team Shot_Few has no result files: every score is 0 (the team still counts in P)',
    ]);
    expect(run.exitCode).toBe(0);
  }, 120_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('built one folder per team, including the team without any result file', () => {
    expect(teams).toHaveLength(10);
    expect(readdirSync(join(root, 'Shot_Few'))).toEqual([]);
  });

  it('writes constants.json byte for byte (competitionScore 0.04471980826842102499)', () => {
    const text = readFileSync(join(root, 'result', 'constants.json'), 'utf8');
    expect(JSON.parse(text).competitionScore).toBe('0.04471980826842102499');
    expect(text).toBe(goldenText('2024', 'constants.json'));
  });

  it('writes character_scores.csv and trial_scores.csv byte for byte (CRLF, json2csv quoting)', () => {
    expect(readFileSync(join(root, 'result', 'character_scores.csv'), 'utf8')).toBe(goldenText('2024', 'character_scores.csv'));
    expect(readFileSync(join(root, 'result', 'trial_scores.csv'), 'utf8')).toBe(goldenText('2024', 'trial_scores.csv'));
  });

  it('ranks every team as published', () => {
    const ranks = readFileSync(join(root, 'result', 'prompt_scores_ranks.csv'), 'utf8');
    expectRanksMatch('2024', ranks);
    expect(ranks.split('\r\n')[1]).toBe('"TheAlmostEngineer","50.171935730770078002","0.02243679346335579995",1');
  });

  it('writes the log and the reports', () => {
    const logs = readdirSync(join(root, 'logs')).filter((f) => /^result_log_.+\.txt$/.test(f));
    expect(logs).toHaveLength(1);
    const log = readFileSync(join(root, 'logs', logs[0] as string), 'utf8');
    expect(log).toContain('Calculating competition score - competition_score: 0.04471980826842102499');
    expect(existsSync(join(root, 'result', 'report.html'))).toBe(true);
    expect(readFileSync(join(root, 'result', 'report.md'), 'utf8')).toContain('Winner: TheAlmostEngineer.');
  });
});

describe('2023 rules against the published ChatGPT4PCG results', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sbeval-score-2023-'));
    buildCompetition(root, readPublishedTrials(goldenText('2023', 'trial_scores.csv')), { diversity: false });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reproduces constants.json (float weights) and character_scores.csv (CRLF, case-insensitive team order)', async () => {
    const run = await runSbeval(['score', root, '--rules', '2023', '--eol', 'crlf']);
    expect(run.stderr.split('\n')).toEqual([
      expect.stringMatching(/^sbeval score: rules 2023 \(flag\), T 10 \(default\), /),
      'score: warning [no-files] team For500 has no result files: every score is 0 (the team still counts in P)',
    ]);
    expect(run.exitCode).toBe(0);
    const constants = readFileSync(join(root, 'result', 'constants.json'), 'utf8');
    expect(JSON.parse(constants).competitionScore).toBe('0.66619817402104604574');
    expect(constants).toBe(goldenText('2023', 'constants.json'));
    expect(readFileSync(join(root, 'result', 'character_scores.csv'), 'utf8')).toBe(goldenText('2023', 'character_scores.csv'));
    expectRanksMatch('2023', readFileSync(join(root, 'result', 'prompt_scores_ranks.csv'), 'utf8'));
  }, 120_000);

  it('reproduces the corrected trial_scores.csv (LF, code-point team order, trial_Score header)', async () => {
    const run = await runSbeval(['score', root, '--rules', '2023', '--team-order', 'bytes']);
    expect(run.exitCode).toBe(0);
    const trials = readFileSync(join(root, 'result', 'trial_scores.csv'), 'utf8');
    expect(trials.split('\n')[0]).toBe('"teamName","character","trial","trial_Score","stabilityScore","similarityScore"');
    expect(trials).toBe(goldenText('2023', 'trial_scores.csv'));
  }, 120_000);
});
