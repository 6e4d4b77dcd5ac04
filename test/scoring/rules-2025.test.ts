import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BigNumber from 'bignumber.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wordsCount } from 'words-count';
import { modelFolderName } from '../../orchestrator/layout/names.js';
import { runSbeval } from '../helpers/cli.js';
import { parseCsv } from './golden-competition.js';
import { prng, type TeamSpec, writeTeam } from './write-team.js';

/**
 * 2025 (LLMs4PCG): three models, each a competition folder of its own; a program's total is the sum
 * of its per-model prompt scores, normalised by the sum of all totals (baselines included); the
 * winner must beat the zero-shot baseline; equal totals go to the shorter prompt, then co-winners.
 * The expected numbers are computed here, independently, straight from the constructed values.
 */

const MODELS = ['gemma2:27b-instruct-fp16', 'qwen2.5:32b-instruct-fp16', 'phi3:14b-medium-128k-instruct-fp16'];
const TEAMS = ['alpha', 'beta', 'gamma', 'zero_shot', 'zero_shot_multi_turn'];
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
const T = 10;

/** Per model, per team: the constructed values (alpha and beta are identical, so they tie). */
function makeData(): Map<string, Map<string, TeamSpec>> {
  const data = new Map<string, Map<string, TeamSpec>>();
  MODELS.forEach((model, m) => {
    const teams = new Map<string, TeamSpec>();
    for (const team of TEAMS) {
      const random = prng(1000 * m + (team === 'beta' ? 'alpha' : team).length * 17 + (team === 'beta' ? 'alpha' : team).charCodeAt(0));
      const strength = team === 'gamma' ? 0.5 : team === 'zero_shot' ? 0.2 : 1;
      const spec: TeamSpec = {};
      for (const letter of LETTERS) {
        if (random() < 0.25) continue; // no files for this letter
        const stability = Array.from({ length: T }, () => (random() < 0.2 ? null : Math.round(random() * 4) / 4));
        const similarity = stability.map((s) => (s === null ? null : Math.fround(random() * strength)));
        spec[letter] = { stability, similarity, diversity: random() * 0.6 };
      }
      teams.set(team, spec);
    }
    data.set(model, teams);
  });
  return data;
}

/** The published formulas, written out plainly with bignumber.js (20 decimals, HALF_UP divisions). */
function expected(data: Map<string, Map<string, TeamSpec>>) {
  const BN = BigNumber.clone({ DECIMAL_PLACES: 20, ROUNDING_MODE: BigNumber.ROUND_HALF_UP });
  const perModel = new Map<string, Map<string, BigNumber>>();
  for (const [model, teams] of data) {
    const p = teams.size;
    const prompt = new Map<string, BigNumber>();
    const weight = new Map<string, BigNumber>();
    for (const letter of LETTERS) {
      let sta = new BN(0);
      let sim = new BN(0);
      let div = new BN(0);
      for (const spec of teams.values()) {
        const c = spec[letter];
        for (const v of c?.stability ?? []) if (v !== null) sta = sta.plus(v);
        for (const v of c?.similarity ?? []) if (v !== null) sim = sim.plus(v);
        div = div.plus(c?.diversity ?? 0);
      }
      const floor = new BN(1).div(26);
      const wSta = BigNumber.max(new BN(1).minus(sta.div(p * T)), floor);
      const wSim = BigNumber.max(new BN(1).minus(sim.div(p * T)), floor);
      const wDiv = BigNumber.max(new BN(1).minus(div.div(p)), floor);
      weight.set(letter, wSta.times(wSim).times(wDiv));
    }
    for (const [team, spec] of teams) {
      let sum = new BN(0);
      for (const letter of LETTERS) {
        const c = spec[letter];
        let trials = new BN(0);
        for (let i = 0; i < T; i++) {
          const s = c?.stability[i] ?? null;
          const q = c?.similarity[i] ?? null;
          if (s !== null && q !== null) trials = trials.plus((weight.get(letter) as BigNumber).times(s).times(q));
        }
        sum = sum.plus(trials.div(T).times(c?.diversity ?? 0));
      }
      prompt.set(team, sum.div(26));
    }
    perModel.set(model, prompt);
  }
  const totals = new Map(TEAMS.map((team) => [team, MODELS.reduce((acc, m) => acc.plus(perModel.get(m)?.get(team) ?? 0), new BN(0))]));
  const grand = [...totals.values()].reduce((a, b) => a.plus(b), new BN(0));
  const normalized = new Map([...totals].map(([team, total]) => [team, total.div(grand).times(100)]));
  return { perModel, totals, grand, normalized, BN };
}

describe('2025 rules: three models, summed and normalised by the grand total', () => {
  let root: string;
  let prompts: string;
  const data = makeData();
  const want = expected(data);

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sbeval-score-2025-'));
    for (const [model, teams] of data) for (const [team, spec] of teams) writeTeam(join(root, modelFolderName(model)), team, spec);
    prompts = join(root, '..', `${root.split(/[\\/]/).at(-1)}-prompts`);
    mkdirSync(prompts, { recursive: true });
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(prompts, { recursive: true, force: true });
  });

  it('the constructed data really has a tie between alpha and beta, and gamma below them', () => {
    expect(want.totals.get('alpha')?.eq(want.totals.get('beta') as BigNumber)).toBe(true);
    expect(want.totals.get('gamma')?.lt(want.totals.get('alpha') as BigNumber)).toBe(true);
    expect(want.totals.get('zero_shot')?.gt(0)).toBe(true);
  });

  it('scores each model folder on its own and sums the prompt scores over models', async () => {
    const run = await runSbeval([
      'score',
      root,
      '--rules',
      '2025',
      '--models',
      MODELS.join(','),
      '--baseline',
      'zero_shot',
      '--not-competing',
      'zero_shot_multi_turn',
      '--json',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    for (const model of MODELS) {
      const [, ...rows] = parseCsv(readFileSync(join(root, modelFolderName(model), 'result', 'prompt_scores_ranks.csv'), 'utf8'));
      expect(rows).toHaveLength(TEAMS.length);
      for (const row of rows)
        expect(row[2]).toBe(
          want.perModel
            .get(model)
            ?.get(row[0] as string)
            ?.toFixed(),
        );
    }
    const constants = JSON.parse(readFileSync(join(root, 'result', 'constants.json'), 'utf8'));
    expect(constants.competitionScore).toBe(want.grand.toFixed());
    expect(constants.models.map((m: { model: string; folder: string }) => [m.model, m.folder])).toEqual(MODELS.map((m) => [m, modelFolderName(m)]));

    const [header, ...rows] = parseCsv(readFileSync(join(root, 'result', 'prompt_scores_ranks.csv'), 'utf8'));
    expect(header).toEqual(['team', 'normalizedPromptScore', 'promptScore', 'rank']);
    const order = [...TEAMS].sort(
      (a, b) => (want.normalized.get(b) as BigNumber).comparedTo(want.normalized.get(a) as BigNumber) || TEAMS.indexOf(a) - TEAMS.indexOf(b),
    );
    expect(rows.map((r) => r[0])).toEqual(order);
    for (const row of rows) {
      expect(row[1]).toBe(want.normalized.get(row[0] as string)?.toFixed());
      expect(row[2]).toBe(want.totals.get(row[0] as string)?.toFixed());
    }
    // The normalised totals of all programs (baselines included) add up to 100 up to the 20-decimal divisions.
    const sum = rows.reduce((acc, r) => acc.plus(r[1] as string), new want.BN(0));
    expect(sum.minus(100).abs().lt('1e-15')).toBe(true);

    // Per-model normalised scores use the grand total as denominator (as the 2025 results page).
    const [detailHeader, ...detail] = parseCsv(readFileSync(join(root, 'result', 'final_team_rankings.csv'), 'utf8'));
    for (const row of detail) {
      for (const model of MODELS) {
        const col = detailHeader?.indexOf(`normalizedPromptScore:${model}`) as number;
        expect(col).toBeGreaterThan(0);
        expect(row[col]).toBe((want.perModel.get(model)!.get(row[0] as string) as BigNumber).div(want.grand).times(100).toFixed());
      }
    }
    const out = JSON.parse(run.stdout);
    // alpha and beta tie; no prompts were given, so the tie stands.
    expect(out.winners).toEqual(['alpha', 'beta']);
    expect(out.notes.join(' ')).toMatch(/no prompt word count.*co-winners/);
  }, 120_000);

  it('breaks the tie by the shorter prompt (2023 word count), then co-winners', async () => {
    const long = 'Build the letter <OBJECT> with drop_block calls, carefully and slowly.';
    const short = 'Draw <OBJECT> using drop_block(), please.';
    expect(wordsCount(long)).toBeGreaterThan(wordsCount(short));
    for (const team of TEAMS) writeFileSync(join(prompts, `${team}.txt`), team === 'beta' ? short : long);
    const run = await runSbeval([
      'score',
      root,
      '--rules',
      '2025',
      '--baseline',
      'zero_shot',
      '--not-competing',
      'zero_shot_multi_turn',
      '--prompts',
      prompts,
      '--json',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.winners).toEqual(['beta']);
    expect(out.notes.join(' ')).toContain(`alpha: ${wordsCount(long)} words, beta: ${wordsCount(short)} words`);
    // The ranking puts the shorter prompt first among equal scores.
    const ranked = out.ranking.map((r: { team: string }) => r.team);
    expect(ranked.indexOf('beta')).toBeLessThan(ranked.indexOf('alpha'));
    // Model folders were detected (no --models): the labels are the folder names.
    expect(out.models).toEqual(MODELS.map(modelFolderName).sort());

    writeFileSync(join(prompts, 'beta.txt'), long);
    const again = JSON.parse(
      (
        await runSbeval([
          'score',
          root,
          '--rules',
          '2025',
          '--baseline',
          'zero_shot',
          '--not-competing',
          'zero_shot_multi_turn',
          '--prompts',
          prompts,
          '--json',
        ])
      ).stdout,
    );
    expect(again.winners).toEqual(['alpha', 'beta']);
    expect(again.notes.join(' ')).toMatch(/equally long prompts .*co-winners/);
  }, 120_000);

  it('gives no win to a team that does not beat the zero-shot baseline', async () => {
    // Naming alpha as the baseline to beat: beta only equals it and gamma is below, so nobody wins.
    const run = await runSbeval(['score', root, '--rules', '2025', '--baseline', 'alpha', '--not-competing', 'zero_shot_multi_turn', '--json']);
    const out = JSON.parse(run.stdout);
    expect(out.winners).toEqual([]);
    expect(out.notes.join(' ')).toMatch(/Not above the zero-shot baseline "alpha".*beta, gamma, zero_shot/);
    // Under 2024 rules (one model folder) the baseline only never wins: the best other team does.
    const first = MODELS[0] as string;
    const single = JSON.parse(
      (
        await runSbeval([
          'score',
          join(root, modelFolderName(first)),
          '--rules',
          '2024',
          '--baseline',
          'alpha',
          '--not-competing',
          'zero_shot_multi_turn',
          '--json',
        ])
      ).stdout,
    );
    const scores = want.perModel.get(first) as Map<string, BigNumber>;
    const best = ['beta', 'gamma', 'zero_shot'].sort((a, b) => (scores.get(b) as BigNumber).comparedTo(scores.get(a) as BigNumber) ?? 0)[0];
    expect(single.winners).toEqual([best]);
  }, 120_000);
});
