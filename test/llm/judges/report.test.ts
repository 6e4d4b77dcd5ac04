import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildJudgesSection, disagreements, type JudgedLevelRow } from '../../../llm/judges/scoring/index.js';
import { runSbeval } from '../../helpers/cli.js';
import { writeTeam } from '../../scoring/write-team.js';
import { writeOrderSummary, writeRubricLetter } from './judge-files.js';

/** The report's Judges section: pure parts on constructed data, then `sbeval score` on folders with judge results. */

/** Spearman's ρ with ties: Pearson's r of mid-ranks. */
function rhoTies(x: number[], y: number[]): number {
  const rank = (v: number[]) => v.map((a) => 1 + v.filter((b) => b < a).length + (v.filter((b) => b === a).length - 1) / 2);
  const rx = rank(x);
  const ry = rank(y);
  const m = (v: number[]) => v.reduce((s, a) => s + a, 0) / v.length;
  const mx = m(rx);
  const my = m(ry);
  const cov = rx.reduce((s, r, i) => s + (r - mx) * (ry[i]! - my), 0);
  const vx = rx.reduce((s, r) => s + (r - mx) ** 2, 0);
  const vy = ry.reduce((s, r) => s + (r - my) ** 2, 0);
  return cov / Math.sqrt(vx * vy);
}

describe('judges section (pure)', () => {
  const levels: JudgedLevelRow[] = [
    { team: 'A', letter: 'I', name: 'A_I_1', similarity: 0.9, stability: 1, judges: { 'rubric:j': 100 } },
    { team: 'A', letter: 'I', name: 'A_I_2', similarity: 0.8, stability: 1, judges: { 'rubric:j': 75 } },
    { team: 'B', letter: 'I', name: 'B_I_1', similarity: 0.1, stability: 0.2, judges: { 'rubric:j': 50 } },
    { team: 'B', letter: 'I', name: 'B_I_2', similarity: 0.95, stability: 0.1, judges: { 'rubric:j': 0 } },
  ];

  it('lists the levels where the ViT and the judge disagree most, by percentile gap', () => {
    const d = disagreements(levels, 'rubric:j', 2);
    // Similarity percentiles: B_I_2 1, A_I_1 2/3, A_I_2 1/3, B_I_1 0; rubric: A_I_1 1, A_I_2 2/3, B_I_1 1/3, B_I_2 0.
    expect(d.map((x) => x.level.name)).toEqual(['B_I_2', 'A_I_1']);
    expect(d[0]!.gap).toBeCloseTo(1, 12);
    expect(d[1]!.gap).toBeCloseTo(1 / 3, 12);
  });

  it('builds a section with every judge beside the official result, intervals, agreement and what was not read', () => {
    const section = buildJudgesSection({
      teams: [
        { team: 'A', officialRank: 1, officialScore: '0.6' },
        { team: 'B', officialRank: 2, officialScore: '0.4' },
      ],
      columns: [
        {
          name: 'rubric:j',
          digits: 1,
          teams: new Map([
            ['A', { mean: 87.5, interval: { low: 75, high: 100 } }],
            ['B', { mean: 25, interval: null }],
          ]),
        },
      ],
      levels,
      agreement: [{ a: 'rubric:j', b: 'survey:looks-like', units: 4, statistic: 'spearman', value: 0.5, interval: { low: 0.1, high: 0.8 } }],
      warnings: ['x.json: not JSON; skipped'],
    });
    expect(section.id).toBe('judges');
    expect(section.markdown).toContain('| A | 1 | 0.6 | 87.5 (75.0–100.0) |');
    expect(section.markdown).toContain('| B | 2 | 0.4 | 25.0 |');
    expect(section.markdown).toContain(`| rubric:j | 4 | ${rhoTies([0.9, 0.8, 0.1, 0.95], [100, 75, 50, 0]).toFixed(3)} |`);
    expect(section.markdown).toContain('| rubric:j | survey:looks-like | 4 | ρ | 0.500 | 0.100–0.800 |');
    expect(section.markdown).toContain('- x.json: not JSON; skipped');
    expect(section.html).toContain('<table class="judges-disagreements">');
  });
});

describe('sbeval score with judge results in the folder', () => {
  const base = mkdtempSync(join(tmpdir(), 'sbeval-judges-report-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const sims: Record<string, number[]> = { Alpha: [0.91, 0.62, 0.33], Beta: [0.84, 0.27, 0.55], Gamma: [0.12, 0.77, 0.48] };

  function competition(name: string): string {
    const root = join(base, name);
    for (const team of Object.keys(sims)) writeTeam(root, team, { I: { stability: [1, 1, 0.5], similarity: sims[team]!, diversity: 0.5 } });
    return root;
  }

  async function judgesSection(root: string): Promise<string> {
    const scored = await runSbeval(['score', root, '--rules', '2024', '--trials', '3']);
    expect(scored.exitCode, scored.stderr).toBe(0);
    const report = readFileSync(join(root, 'result', 'report.md'), 'utf8');
    expect(report).toContain('## Judges');
    return report.slice(report.indexOf('## Judges'));
  }

  it('shows two rubric judges and an ordering judge side by side, each team mean with its interval, and their agreement', async () => {
    const root = competition('two-judges');
    const rubric: Record<string, Array<number | 'refused' | 'missing'>> = { Alpha: [100, 50, 25], Beta: [75, 'refused', 50], Gamma: [25, 100, 'missing'] };
    const other: Record<string, number[]> = { Alpha: [100, 75, 25], Beta: [50, 0, 50], Gamma: [0, 100, 25] };
    for (const team of Object.keys(sims)) {
      writeRubricLetter(root, 'llava_13b', team, 'I', rubric[team]!);
      writeRubricLetter(root, 'gpt-4o', team, 'I', other[team]!);
    }
    const orderScores: Record<string, number[]> = { Alpha: [10, 7.5, 5], Beta: [8.75, 2.5, 6.25], Gamma: [3.75, 9.5, 4.5] };
    writeOrderSummary(
      root,
      'qwen',
      'general',
      Object.entries(orderScores).flatMap(([team, v]) => v.map((score, i) => ({ team, letter: 'I', trial: i + 1, score }))),
      [
        { team: 'Alpha', meanScore: 9, questions: 3 },
        { team: 'Beta', meanScore: 7, questions: 3 },
        { team: 'Gamma', meanScore: 6, questions: 3 },
      ],
    );
    // An older sbeval's layout and a torn file: named, not read.
    writeFileSync(join(root, 'Alpha', 'judge-rubric', 'I.json'), '{}');
    writeFileSync(join(root, 'Beta', 'judge-rubric', 'gpt-4o', 'L.json'), '{"judge": "rubric", "trials": [');

    const section = await judgesSection(root);
    const scores = (s: Array<number | 'refused' | 'missing'>) => s.map((v) => (typeof v === 'number' ? v : 0));
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    for (const team of Object.keys(sims)) {
      // Refused and missing count 0 (the failure rule), so every team mean is over 3 levels.
      const row = section.split('\n').find((l) => l.startsWith(`| ${team} |`))!;
      expect(row, team).toContain(`| ${mean(scores(rubric[team]!)).toFixed(1)} (`);
      expect(row, team).toContain(`| ${mean(other[team]!).toFixed(1)} (`);
    }
    const allSims = Object.values(sims).flat();
    expect(section).toContain(`| rubric:llava\\_13b | 9 | ${rhoTies(allSims, Object.values(rubric).flatMap(scores)).toFixed(3)} |`);
    expect(section).toContain(`| order:qwen:general | 9 | ${rhoTies(allSims, Object.values(orderScores).flat()).toFixed(3)} |`);
    expect(section).toMatch(/\| rubric:gpt-4o \| rubric:llava\\_13b \| 9 \| α \| -?\d\.\d{3} \| -?\d\.\d{3}–-?\d\.\d{3} \|/);
    expect(section).toMatch(/Alpha\/judge-rubric: letter files outside a judge folder/);
    expect(section).toMatch(/Beta\/judge-rubric\/gpt-4o\/L\.json: not JSON/);
  });

  it('counts only the survey answers that `survey collect` counts (a survey rebuilt while served)', async () => {
    const root = competition('rebuilt');
    const out = join(root, 'result', 'survey');
    mkdirSync(join(out, 'answers'), { recursive: true });
    const metrics = [
      { id: 'looks-like', name: 'Looks like', question: 'q', instructions: 'i', notPenalised: [], penalised: [], scale: { min: 1, max: 5, labels: {} } },
    ];
    const item = (id: string, team: string, trial: number) => ({
      id,
      team,
      letter: 'I',
      trial,
      name: `${team}_I_${trial}`,
      start: '',
      final: null,
      grid: null,
      history: [],
      historyNote: null,
      level: `${team}/levels/I/${team}_I_${trial}.xml`,
      stability: null,
      similarity: null,
    });
    const survey = (items: unknown[]) => JSON.stringify({ version: 1, title: 't', instructions: '', seed: 7, root: '../..', metrics, items });
    // Rated while the survey held Alpha_I_1 and Beta_I_1 …
    mkdirSync(join(out, 'answers', 'r1'));
    writeFileSync(join(out, 'answers', 'r1', 'item-1.json'), JSON.stringify({ values: { 'looks-like': 5 }, at: '', level: 'Alpha/I/Alpha_I_1' }));
    writeFileSync(join(out, 'answers', 'r1', 'item-2.json'), JSON.stringify({ values: { 'looks-like': 2 }, at: '', level: 'Beta/I/Beta_I_1' }));
    // … then rebuilt: item-1 is now a Gamma level, item-2 is still Beta's.
    writeFileSync(join(out, 'survey.json'), survey([item('item-1', 'Gamma', 2), item('item-2', 'Beta', 1)]));
    // And one file that is not a rater's answers at all.
    writeFileSync(join(out, 'answers', 'r1', 'item-3.json'), '[1, 2');

    const collected = await runSbeval(['survey', 'collect', root, '--json']);
    expect(collected.exitCode, collected.stderr).toBe(0);
    const result = JSON.parse(collected.stdout);
    expect(result.ratings).toBe(1);
    expect(result.warnings).toEqual([expect.stringMatching(/^answers\/r1\/item-3\.json: not JSON .*; skipped$/)]);
    const section = await judgesSection(root);
    const row = (team: string) => section.split('\n').find((l) => l.startsWith(`| ${team} |`))!;
    // Nobody rated a Gamma level: no mean (before: 5.00, the rating of Alpha's level under the same id).
    expect(row('Gamma').trim().endsWith('| – |')).toBe(true);
    expect(row('Beta')).toMatch(/\| 2\.00 \|$/);
    expect(row('Alpha').trim().endsWith('| – |')).toBe(true);
    expect(section).toMatch(/survey answers\/r1\/item-3\.json: not JSON/);
  });
});
