import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildJudgesSection, disagreements, type JudgedLevelRow } from '../../scoring/judges/index.js';
import { runSbeval } from '../helpers/cli.js';
import { writeTeam } from '../scoring/write-team.js';

/** The report's Judges section: pure parts on constructed data, then `sbeval score` on a folder with judge results. */

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

/** Spearman's ρ without ties: 1 − 6 Σ d² / (n (n² − 1)). */
function rhoNoTies(x: number[], y: number[]): number {
  const rank = (v: number[]) => v.map((a) => 1 + v.filter((b) => b < a).length);
  const rx = rank(x);
  const ry = rank(y);
  const n = x.length;
  const d2 = rx.reduce((s, r, i) => s + (r - ry[i]!) ** 2, 0);
  return 1 - (6 * d2) / (n * (n * n - 1));
}

describe('judges section (pure)', () => {
  const levels: JudgedLevelRow[] = [
    { team: 'A', letter: 'I', name: 'A_I_1', similarity: 0.9, stability: 1, judges: { rubric: 100 } },
    { team: 'A', letter: 'I', name: 'A_I_2', similarity: 0.8, stability: 1, judges: { rubric: 75 } },
    { team: 'B', letter: 'I', name: 'B_I_1', similarity: 0.1, stability: 0.2, judges: { rubric: 50 } },
    { team: 'B', letter: 'I', name: 'B_I_2', similarity: 0.95, stability: 0.1, judges: { rubric: 0 } },
  ];

  it('lists the levels where the ViT and the judge disagree most, by percentile gap', () => {
    const d = disagreements(levels, 'rubric', 2);
    // Similarity percentiles: B_I_2 1, A_I_1 2/3, A_I_2 1/3, B_I_1 0; rubric: A_I_1 1, A_I_2 2/3, B_I_1 1/3, B_I_2 0.
    // Gaps: B_I_2 1, the three others 1/3 (equal gaps in name order).
    expect(d.map((x) => x.level.name)).toEqual(['B_I_2', 'A_I_1']);
    expect(d[0]!.gap).toBeCloseTo(1, 12);
    expect(d[1]!.gap).toBeCloseTo(1 / 3, 12);
  });

  it('builds a section with the teams beside the official result and the agreement', () => {
    const section = buildJudgesSection({
      teams: [{ team: 'A', officialRank: 1, officialScore: '0.6', rubric: 87.5, order: {}, survey: {} }, { team: 'B', officialRank: 2, officialScore: '0.4', rubric: 25, order: {}, survey: {} }],
      levels,
      perspectives: [],
      surveyMetrics: [],
    });
    expect(section.id).toBe('judges');
    expect(section.markdown).toContain('| A | 1 | 0.6 | 87.5 |');
    expect(section.markdown).toContain(`| rubric | 4 | ${rhoNoTies([0.9, 0.8, 0.1, 0.95], [100, 75, 50, 0]).toFixed(3)} |`);
    expect(section.html).toContain('<table class="judges-disagreements">');
  });
});

describe('sbeval score with judge results in the folder', () => {
  const base = mkdtempSync(join(tmpdir(), 'sbeval-judges-report-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('adds the Judges section: official rank and score, rubric and ordering means, agreement with the similarity', async () => {
    const root = join(base, 'c');
    const sims: Record<string, number[]> = { Alpha: [0.91, 0.62, 0.33], Beta: [0.84, 0.27, 0.55], Gamma: [0.12, 0.77, 0.48] };
    const rubric: Record<string, number[]> = { Alpha: [100, 50, 25], Beta: [75, 0, 50], Gamma: [25, 100, 75] };
    for (const team of Object.keys(sims)) {
      writeTeam(root, team, { I: { stability: [1, 1, 0.5], similarity: sims[team]!, diversity: 0.5 } });
      mkdirSync(join(root, team, 'judge-rubric'), { recursive: true });
      writeFileSync(
        join(root, team, 'judge-rubric', 'I.json'),
        JSON.stringify({ judge: 'rubric', team, character: 'I', settings: {}, complete: true, summary: {}, trials: rubric[team]!.map((score, i) => ({ trial: i + 1, name: `${team}_I_${i + 1}`, judged: true, ok: true, score })) }),
      );
    }
    const orderDir = join(root, 'result', 'judge-order', 'general');
    mkdirSync(orderDir, { recursive: true });
    writeFileSync(join(orderDir, 'scores.csv'), 'team,questions,mean_score,mean_rank\nAlpha,3,9,1.4\nBeta,3,7,2.2\nGamma,3,6,2.4\n');
    const orderLevels = ['team,letter,trial,name,questions,mean_score,mean_rank'];
    const orderScores: Record<string, number[]> = { Alpha: [10, 7.5, 5], Beta: [8.75, 2.5, 6.25], Gamma: [3.75, 9.5, 4.5] };
    for (const [team, values] of Object.entries(orderScores)) values.forEach((v, i) => orderLevels.push(`${team},I,${i + 1},${team}_I_${i + 1},1,${v},1`));
    writeFileSync(join(orderDir, 'levels.csv'), `${orderLevels.join('\n')}\n`);

    const scored = await runSbeval(['score', root, '--rules', '2024', '--trials', '3', '--json']);
    expect(scored.exitCode, scored.stderr).toBe(0);
    const ranking = JSON.parse(scored.stdout).ranking as Array<{ team: string; rank: number; normalizedPromptScore: string }>;
    const report = readFileSync(join(root, 'result', 'report.md'), 'utf8');
    expect(report).toContain('## Judges');
    const section = report.slice(report.indexOf('## Judges'));
    for (const r of ranking) {
      const mean = rubric[r.team]!.reduce((a, b) => a + b, 0) / 3;
      const order = { Alpha: '9.000', Beta: '7.000', Gamma: '6.000' }[r.team];
      expect(section).toContain(`| ${r.team} | ${r.rank} | ${r.normalizedPromptScore} | ${mean.toFixed(1)} | ${order} |`);
    }
    const teams = Object.keys(sims);
    const allSims = teams.flatMap((t) => sims[t]!);
    expect(section).toContain(`| rubric | 9 | ${rhoTies(allSims, teams.flatMap((t) => rubric[t]!)).toFixed(3)} |`);
    expect(section).toContain(`| order:general | 9 | ${rhoNoTies(allSims, teams.flatMap((t) => orderScores[t]!)).toFixed(3)} |`);
    const html = readFileSync(join(root, 'result', 'report.html'), 'utf8');
    expect(html).toContain('id="judges"');
  });
});
