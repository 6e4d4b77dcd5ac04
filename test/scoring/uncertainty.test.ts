import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { EOL, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCompetition } from '../../orchestrator/stages/score.js';
import { runScoreStage } from '../../orchestrator/stages/score-stage.js';
import { RULE_SETS } from '../../scoring/score/rules.js';
import { finishBootstrap, sampleBootstrap } from '../../scoring/uncertainty/bootstrap.js';
import { buildModel, intervalsCsv, rankProbabilitiesCsv, runBootstrap, summarize, type UncertaintyModel, Xoshiro128 } from '../../scoring/uncertainty/index.js';
import { physicsTable } from '../../scoring/uncertainty/model.js';
import { Digits } from '../../scoring/uncertainty/random.js';
import { allocateDraws, allocateScores, identityInto, scoreInto, scoreResample } from '../../scoring/uncertainty/resample.js';
import { runSbeval } from '../helpers/cli.js';
import { parseCsv } from './golden-competition.js';
import { type CompetitionSpec, randomCompetition, resampleSpec, writeCompetition } from './uncertainty-folder.js';
import { writeTeam } from './write-team.js';

/**
 * The ranking's uncertainty: a seeded bootstrap over trials that scores every resample the
 * official way. What a user sees is tested through `sbeval score`; that the bootstrap's scoring of a
 * resample is the official scoring is tested by writing resamples out as folders and scoring them with
 * sbeval's official scorer.
 */
const tmp = mkdtempSync(join(tmpdir(), 'sbeval-uncertainty-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const LETTERS = ['A', 'I', 'L', 'T'];
const csv = (root: string, name: string) => parseCsv(readFileSync(join(root, 'result', name), 'utf8'));
const OFFICIAL = ['constants.json', 'trial_scores.csv', 'character_scores.csv', 'prompt_scores_ranks.csv'];

describe('the bootstrap’s random numbers', () => {
  it('are xoshiro128** (the reference implementation’s outputs from state 1, 2, 3, 4)', () => {
    // prng.di.unimi.it/xoshiro128starstar.c compiled and run with s = {1, 2, 3, 4}.
    const g = Xoshiro128.fromState(1, 2, 3, 4);
    expect(Array.from({ length: 8 }, () => g.next())).toEqual([11520, 0, 5927040, 70819200, 2031721883, 1637235492, 1287239034, 3734860849]);
  });

  it('draw every index below n about equally often, and a stream repeats for its seed and index only', () => {
    const g = new Digits(new Xoshiro128(1, 0), 10);
    const counts = new Array(10).fill(0);
    for (let i = 0; i < 100_000; i++) counts[g.next()] += 1;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(400); // ±4 standard deviations
    const first = (seed: number, stream: number) => new Xoshiro128(seed, stream).next();
    expect(first(1, 5)).toBe(first(1, 5));
    expect(new Set([first(1, 0), first(1, 1), first(2, 0), first(2, 1)]).size).toBe(4);
  });
});

describe('a team’s draws are its own', () => {
  it('adding a team (with a letter nobody else has) leaves every other team’s resampled trials unchanged', () => {
    const spec = randomCompetition({ teams: ['north', 'south'], letters: LETTERS, trials: 6, seed: 5, failed: 0.1 });
    const newcomer = randomCompetition({ teams: ['east'], letters: [...LETTERS, 'Z'], trials: 6, seed: 6 });
    const modelOf = (dir: string, teams: CompetitionSpec) => {
      writeCompetition(dir, teams, { rules: 2024, trials: 6 });
      return buildModel([{ label: '', input: loadCompetition(dir, RULE_SETS['2024'], { trials: 6 }).input, rules: RULE_SETS['2024'] }]);
    };
    const two = modelOf(join(tmp, 'two-teams'), spec);
    const three = modelOf(join(tmp, 'three-teams'), new Map([...spec, ...newcomer]));
    expect(three.competitions[0]!.teams).toContain('east');
    const drawsOf = (model: UncertaintyModel, team: string, r: number) => {
      const k = model.competitions[0]!.teams.indexOf(team);
      const { draws } = scoreResample(model, 7, r);
      return LETTERS.map((l) => Array.from(draws.trial[0]![l.charCodeAt(0) - 65]![k]!));
    };
    for (let r = 0; r < 20; r++) {
      for (const team of ['north', 'south']) expect(drawsOf(three, team, r), `${team} resample ${r}`).toEqual(drawsOf(two, team, r));
    }
    // Two teams do not share a stream: their draws differ.
    expect(drawsOf(two, 'north', 0)).not.toEqual(drawsOf(two, 'south', 0));
  });
});

describe('perturbed physics: the evaluator’s best of up to 3 runs, drawn in one step', () => {
  it('gives each score the probability of being the best of 3 random runs', () => {
    // 4 runs: two stable (1), one 0.5, one 0: P(best ≤ 0) = (1/4)³, P(best ≤ 0.5) = (2/4)³.
    const table = physicsTable([1, 0.5, 1, 0], 3);
    expect(Array.from(table.scores)).toEqual([0, 0.5, 1]);
    expect(Array.from(table.atMost)).toEqual([1, 8, 64]);
    expect(table.picks).toBe(64);
    // Through a resample: a level with these runs in every slot of one team × letter.
    const root = join(tmp, 'physics-table');
    const spec = randomCompetition({ teams: ['solo', 'other'], letters: ['A'], trials: 10, seed: 3 });
    writeCompetition(root, spec, { rules: 2024, trials: 10 });
    const { input } = loadCompetition(root, RULE_SETS['2024'], { trials: 10 });
    const starting = (trial: number) => spec.get('solo')?.get('A')?.[trial - 1]?.stability?.startingObjects as number;
    // moving counts that give 1, 0.5 (when possible) and 0 for each level
    const model = buildModel([{ label: '', input, rules: RULE_SETS['2024'] }], {
      physics: (_m, team, _l, trial) => (team === 'solo' && starting(trial) % 2 === 0 ? [0, starting(trial) / 2, 0, starting(trial)] : undefined),
    });
    const seen = new Map<number, number>();
    let draws = 0;
    for (let r = 0; r < 400; r++) {
      const { draws: d } = scoreResample(model, 9, r);
      const cell = d.trial[0]![0]![model.competitions[0]!.teams.indexOf('solo')]!;
      Array.from(cell).forEach((trial, s) => {
        if (starting(trial + 1) % 2 !== 0) return;
        const v = d.stability[0]![0]![model.competitions[0]!.teams.indexOf('solo')]![s]!;
        seen.set(v, (seen.get(v) ?? 0) + 1);
        draws += 1;
      });
    }
    expect(draws).toBeGreaterThan(1000);
    expect(Math.abs((seen.get(0) ?? 0) / draws - 1 / 64)).toBeLessThan(0.01);
    expect(Math.abs((seen.get(0.5) ?? 0) / draws - 7 / 64)).toBeLessThan(0.02);
    expect(Math.abs((seen.get(1) ?? 0) / draws - 56 / 64)).toBeLessThan(0.03);
  });
});

describe('sbeval score: who is sure to win, and who is not', () => {
  const twins = join(tmp, 'twins');
  const ahead = join(tmp, 'ahead');
  let twinsRun: Awaited<ReturnType<typeof runSbeval>>;
  let aheadRun: Awaited<ReturnType<typeof runSbeval>>;

  beforeAll(async () => {
    // GridThinkers and BlockSmith are byte-identical folders; Rubble is far weaker (it counts in P and the normalisation, and never wins).
    const spec = randomCompetition({
      teams: ['GridThinkers', 'Rubble'],
      letters: LETTERS,
      trials: 10,
      seed: 11,
      failed: 0.1,
      strength: (t) => (t === 'Rubble' ? 0.01 : 1),
    });
    writeCompetition(twins, spec, { rules: 2024, trials: 10 });
    cpSync(join(twins, 'GridThinkers'), join(twins, 'BlockSmith'), { recursive: true });
    writeCompetition(
      ahead,
      randomCompetition({ teams: ['Strong', 'Weak'], letters: LETTERS, trials: 10, seed: 12, strength: (t) => (t === 'Weak' ? 0.01 : 1) }),
      { rules: 2024, trials: 10 },
    );
    [twinsRun, aheadRun] = await Promise.all([runSbeval(['score', twins, '--rules', '2024']), runSbeval(['score', ahead, '--rules', '2024'])]);
  }, 180_000);

  it('two byte-identical teams each rank first in about half the resamples: no clear winner', () => {
    expect(twinsRun.exitCode, twinsRun.stderr).toBe(0);
    const rows = csv(twins, 'rank_probabilities.csv');
    expect(rows[0]).toEqual(['team', 'rank', 'probability']);
    expect(rows).toHaveLength(1 + 3 * 3);
    const first = (team: string) => Number(rows.find((r) => r[0] === team && r[1] === '1')?.[2]);
    for (const team of ['GridThinkers', 'BlockSmith']) {
      expect(first(team)).toBeGreaterThanOrEqual(0.45);
      expect(first(team)).toBeLessThanOrEqual(0.55);
    }
    // Rubble wins about once in 10,000 resamples (6 seeds × 4000 resamples: 1 win).
    expect(first('Rubble')).toBeLessThan(0.005);
    expect(first('GridThinkers') + first('BlockSmith')).toBeGreaterThan(0.995);
    const report = readFileSync(join(twins, 'result', 'report.md'), 'utf8');
    // "≈" marks the shares when Rubble's rare wins leave "others < 1 %" (docs/uncertainty.md).
    expect(report).toMatch(/Ranking uncertainty: no clear winner: (GridThinkers|BlockSmith) (≈ )?\d\d %, (GridThinkers|BlockSmith) (≈ )?\d\d %/);
    expect(twinsRun.stdout).toMatch(/uncertainty: no clear winner: /);
    // The simultaneous intervals cannot tell the twins apart: both are in the winner's 95 % set.
    const set = /; at 95 % \(simultaneous intervals\) the winner is one of ([^(\n]*?) \(/.exec(report)?.[1]?.split(', ');
    expect(set).toEqual(expect.arrayContaining(['GridThinkers', 'BlockSmith']));
  });

  it('the twins get the same intervals as each other, around their official score', () => {
    const [header, ...rows] = csv(twins, 'score_intervals.csv');
    expect(header).toEqual(['team', 'promptScore', 'low', 'high', 'normalizedPromptScore', 'normLow', 'normHigh']);
    const ranks = csv(twins, 'prompt_scores_ranks.csv').slice(1);
    expect(rows.map((r) => r[0])).toEqual(ranks.map((r) => r[0]));
    for (const r of rows) {
      const official = ranks.find((o) => o[0] === r[0]) as string[];
      expect([r[1], r[4]]).toEqual([official[2], official[1]]); // the official exact values, as printed there
      expect(Number(r[2])).toBeLessThan(Number(r[3]));
      expect(Number(r[5])).toBeLessThan(Number(r[6]));
    }
    const twin = (team: string) => rows.find((r) => r[0] === team)?.slice(1);
    // Same data, independent draws: the bounds agree closely but are not the same numbers.
    const [g, b] = [twin('GridThinkers') as string[], twin('BlockSmith') as string[]];
    expect(g[0]).toBe(b[0]);
    expect(Math.abs(Number(g[1]) - Number(b[1])) / Number(g[0])).toBeLessThan(0.05);
  });

  it('a team far ahead ranks first in every resample', () => {
    expect(aheadRun.exitCode, aheadRun.stderr).toBe(0);
    const rows = csv(ahead, 'rank_probabilities.csv').slice(1);
    expect(rows.find((r) => r[0] === 'Strong' && r[1] === '1')?.[2]).toBe('1');
    expect(rows.find((r) => r[0] === 'Weak' && r[1] === '1')?.[2]).toBe('0');
    expect(aheadRun.stdout).toContain('uncertainty: Strong ranks first in 100 % of 2000 resamples; at 95 % (simultaneous intervals) the winner is Strong');
    const html = readFileSync(join(ahead, 'result', 'report.html'), 'utf8');
    expect(html).toContain('Strong ranks first in 100 % of 2000 resamples');
    expect(html).toMatch(/<svg[^>]*class="heatmap" data-metric="rank-probability"/);
    expect(html).toMatch(/<g class="interval" data-low="[\d.]+" data-high="[\d.]+"/);
  });

  it('leaves the official files byte-identical to `--uncertainty off`, which writes no intervals', async () => {
    const before = Object.fromEntries(OFFICIAL.map((f) => [f, readFileSync(join(ahead, 'result', f))]));
    const off = await runSbeval(['score', ahead, '--rules', '2024', '--uncertainty', 'off']);
    expect(off.exitCode, off.stderr).toBe(0);
    for (const f of OFFICIAL) expect(readFileSync(join(ahead, 'result', f)).equals(before[f] as Buffer), f).toBe(true);
    expect(existsSync(join(ahead, 'result', 'score_intervals.csv'))).toBe(false);
    expect(existsSync(join(ahead, 'result', 'rank_probabilities.csv'))).toBe(false);
    expect(off.stdout).toContain('uncertainty: uncertainty off');
  }, 120_000);
});

describe('sbeval score: seeds and T = 1', () => {
  it('the same seed gives byte-identical files; another seed other draws', async () => {
    const root = join(tmp, 'seeded');
    writeCompetition(root, randomCompetition({ teams: ['a', 'b', 'c'], letters: LETTERS, trials: 5, seed: 21, failed: 0.2 }), { rules: 2024, trials: 5 });
    const files = () => ['score_intervals.csv', 'rank_probabilities.csv'].map((f) => readFileSync(join(root, 'result', f), 'utf8'));
    const args = ['score', root, '--rules', '2024', '--trials', '5', '--resamples', '500'];
    expect((await runSbeval(args)).exitCode).toBe(0);
    const first = files();
    expect((await runSbeval(args)).exitCode).toBe(0);
    expect(files()).toEqual(first);
    expect((await runSbeval([...args, '--uncertainty-seed', '2'])).exitCode).toBe(0);
    expect(files()[0]).not.toEqual(first[0]);
  }, 180_000);

  it('with T = 1 says intervals cannot be computed, writes none and removes old ones', async () => {
    const root = join(tmp, 'single');
    writeTeam(root, 'one', { A: { stability: [1], similarity: [0.5], diversity: 0 } });
    writeTeam(root, 'two', { A: { stability: [0.5], similarity: [0.25], diversity: 0 } });
    // Files a score with more trials left behind must not survive as if they described this folder.
    mkdirSync(join(root, 'result'));
    writeFileSync(join(root, 'result', 'score_intervals.csv'), 'stale\n');
    writeFileSync(join(root, 'result', 'rank_probabilities.csv'), 'stale\n');
    const run = await runSbeval(['score', root, '--rules', '2024', '--trials', '1']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('uncertainty: with T = 1 trial per letter there is nothing to resample: intervals cannot be computed (none written)');
    expect(existsSync(join(root, 'result', 'score_intervals.csv'))).toBe(false);
    expect(existsSync(join(root, 'result', 'rank_probabilities.csv'))).toBe(false);
    expect(existsSync(join(root, 'result', 'prompt_scores_ranks.csv'))).toBe(true);
    expect(readFileSync(join(root, 'result', 'report.md'), 'utf8')).toContain('intervals cannot be computed');
  }, 120_000);
});

/** Writes resample r of a model as real folders, scores them with the official scorer, and compares. */
async function checkResample(
  model: UncertaintyModel,
  specs: readonly CompetitionSpec[],
  dir: string,
  r: number,
  rules: '2024' | '2025',
  folders: readonly string[] | undefined,
): Promise<void> {
  const { draws, scores } = scoreResample(model, 1, r);
  model.competitions.forEach((c, m) => {
    const spec = resampleSpec(specs[m] as CompetitionSpec, c.teams, draws, m);
    writeCompetition(folders ? join(dir, folders[m] as string) : dir, spec, { rules: rules === '2024' ? 2024 : 2025, trials: c.trials });
  });
  await runScoreStage({ root: dir, rules, trials: model.competitions[0]?.trials ?? 10, uncertainty: { enabled: false, resamples: 1, seed: 1 } });
  const official = csv(dir, 'prompt_scores_ranks.csv').slice(1);
  for (const [team, normalized, prompt] of official) {
    const i = model.teams.indexOf(team as string);
    expect(Math.abs((scores.prompt[i] as number) - Number(prompt)), `${team} prompt`).toBeLessThanOrEqual(1e-12 * Number(prompt));
    expect(Math.abs((scores.normalized[i] as number) - Number(normalized)), `${team} normalised`).toBeLessThanOrEqual(1e-12 * Number(normalized));
  }
  const byDouble = [...model.teams].sort(
    (a, b) => (scores.normalized[model.teams.indexOf(b)] as number) - (scores.normalized[model.teams.indexOf(a)] as number),
  );
  expect(byDouble).toEqual(official.map((row) => row[0]));
  // Each model folder's own ranking (its own result folder): that competition's prompt scores, normalised by their own total.
  for (const [m, folder] of (folders ?? []).entries()) {
    const c = model.competitions[m]!;
    const own = scores.competitionPrompt[m]!;
    const total = own.reduce((a, b) => a + b, 0);
    const rows = csv(join(dir, folder), 'prompt_scores_ranks.csv').slice(1);
    for (const [team, normalized, prompt] of rows) {
      const k = c.teams.indexOf(team as string);
      expect(Math.abs(own[k]! - Number(prompt)), `${folder}/${team} prompt`).toBeLessThanOrEqual(1e-12 * Number(prompt));
      expect(Math.abs((own[k]! / total) * 100 - Number(normalized)), `${folder}/${team} normalised`).toBeLessThanOrEqual(1e-12 * Number(normalized));
    }
    expect([...c.teams].sort((a, b) => own[c.teams.indexOf(b)]! - own[c.teams.indexOf(a)]!)).toEqual(rows.map((row) => row[0]));
  }
}

describe('every resample is the official scoring of the resample’s files', () => {
  it('2024 rules, failed trials and missing images, trials drawn twice (4 resamples written out)', async () => {
    const root = join(tmp, 'exact-2024');
    const spec = randomCompetition({ teams: ['alpha', 'Beta', 'gamma', 'delta'], letters: LETTERS, trials: 6, seed: 31, failed: 0.15, noImage: 0.1 });
    writeCompetition(root, spec, { rules: 2024, trials: 6 });
    const { input } = loadCompetition(root, RULE_SETS['2024'], { trials: 6 });
    const model = buildModel([{ label: '', input, rules: RULE_SETS['2024'] }]);
    expect(model.notes).toEqual([]); // the files' diversityRate is what their vectors give
    const duplicates = (r: number) => scoreResample(model, 1, r).draws.trial[0]!.some((letter) => letter?.some((t) => new Set(t).size < t.length));
    expect(duplicates(0)).toBe(true);
    for (const r of [0, 1, 7, 1999]) await checkResample(model, [spec], join(tmp, `exact-2024-r${r}`), r, '2024', undefined);
    // The bootstrap's loop (buffers reused) gives what a fresh resample gives.
    const result = runBootstrap(model, { resamples: 8, seed: 1, ranking: model.teams });
    for (const r of [0, 7]) for (let i = 0; i < model.teams.length; i++) expect(result.prompt[i]![r]).toBe(scoreResample(model, 1, r, true).scores.prompt[i]);
  }, 180_000);

  it('the bootstrap scales resampled diversity by T/(T−1): resampled prompt scores move towards the official ones', () => {
    const root = join(tmp, 'diversity-bias');
    writeCompetition(root, randomCompetition({ teams: ['alpha', 'beta', 'gamma'], letters: LETTERS, trials: 10, seed: 33 }), { rules: 2024, trials: 10 });
    const model = buildModel([{ label: '', input: loadCompetition(root, RULE_SETS['2024'], { trials: 10 }).input, rules: RULE_SETS['2024'] }]);
    const official = allocateScores(model);
    const draws = allocateDraws(model);
    identityInto(model, draws);
    scoreInto(model, draws, official);
    const result = runBootstrap(model, { resamples: 2000, seed: 3, ranking: model.teams });
    const meanOf = (i: number, corrected: boolean) => {
      let sum = 0;
      for (let r = 0; r < 2000; r++) sum += corrected ? result.prompt[i]![r]! : scoreResample(model, 3, r).scores.prompt[i]!;
      return sum / 2000;
    };
    for (let i = 0; i < model.teams.length; i++) {
      const truth = official.prompt[i]!;
      // Uncorrected, duplicates (chance 1/T per pair) pull the mean about 1/T = 25 % down; corrected, it stays close.
      // Uncorrected, duplicates (chance 1/T per slot pair) pull the mean down by 13–14 % here; corrected, by
      // 5–6 % (what remains is the weights' nonlinearity: a cell's own draws move its letter's weight).
      expect(meanOf(i, false) / truth).toBeLessThan(0.9);
      expect(1 - meanOf(i, true) / truth).toBeLessThan((1 - meanOf(i, false) / truth) / 2);
    }
  });

  it('perturbed physics: the stability a resample drew is the one its written files hold', async () => {
    const root = join(tmp, 'exact-physics');
    const spec = randomCompetition({ teams: ['p', 'q', 'r'], letters: LETTERS, trials: 5, seed: 41, failed: 0.1 });
    writeCompetition(root, spec, { rules: 2024, trials: 5 });
    const { input } = loadCompetition(root, RULE_SETS['2024'], { trials: 5 });
    // Every level: 7 perturbed runs with 0..starting moving objects.
    const physics = (_m: number, team: string, letter: string, trial: number) => {
      const level = spec.get(team)?.get(letter)?.[trial - 1]?.stability;
      return level ? Array.from({ length: 7 }, (_, k) => (k * 3 + trial) % (level.startingObjects + 1)) : undefined;
    };
    const model = buildModel([{ label: '', input, rules: RULE_SETS['2024'] }], { physics });
    expect(model.physicsTrials).toBeGreaterThan(40);
    const { draws } = scoreResample(model, 1, 3);
    const official = draws.stability[0]!.flatMap((letter, l) =>
      (letter ?? []).flatMap((slots, k) =>
        Array.from(slots).map((v, s) => [v, model.competitions[0]!.letters[l]!.cells[k]!.stability[draws.trial[0]![l]![k]![s]!]]),
      ),
    );
    expect(official.some(([drawn, own]) => !Number.isNaN(drawn as number) && drawn !== own)).toBe(true);
    for (const r of [3, 4]) await checkResample(model, [spec], join(tmp, `exact-physics-r${r}`), r, '2024', undefined);
  }, 180_000);

  it('2025 rules over two model folders (CLS vectors, totals summed over models)', async () => {
    const folders = ['qwen', 'gemma'];
    const specs = folders.map((_, m) => randomCompetition({ teams: ['x', 'y', 'zero-shot'], letters: LETTERS, trials: 4, seed: 51 + m, failed: 0.1, cls: 24 }));
    const root = join(tmp, 'exact-2025');
    folders.forEach((f, m) => writeCompetition(join(root, f), specs[m] as CompetitionSpec, { rules: 2025, trials: 4 }));
    const model = buildModel(
      folders.map((f) => ({ label: f, input: loadCompetition(join(root, f), RULE_SETS['2025'], { trials: 4 }).input, rules: RULE_SETS['2025'] })),
    );
    for (const r of [0, 5]) await checkResample(model, specs, join(tmp, `exact-2025-r${r}`), r, '2025', folders);
  }, 180_000);
});

describe('the resamples first, the official rankings after (while the official scoring runs)', () => {
  it('give what the bootstrap that knew the rankings gives: 2024 with perturbed physics, 2025 over two model folders', () => {
    const root = join(tmp, 'two-ways');
    const spec = randomCompetition({ teams: ['p', 'q', 'r'], letters: LETTERS, trials: 5, seed: 61, failed: 0.1 });
    writeCompetition(join(root, 'single'), spec, { rules: 2024, trials: 5 });
    const physics = (_m: number, _team: string, _letter: string, trial: number) => [0, trial % 3, 1, 0];
    const single = buildModel([{ label: '', input: loadCompetition(join(root, 'single'), RULE_SETS['2024'], { trials: 5 }).input, rules: RULE_SETS['2024'] }], {
      physics,
    });
    const folders = ['qwen', 'gemma'];
    folders.forEach((f, m) =>
      writeCompetition(join(root, f), randomCompetition({ teams: ['x', 'y', 'zero-shot'], letters: LETTERS, trials: 4, seed: 71 + m, cls: 24 }), {
        rules: 2025,
        trials: 4,
      }),
    );
    const models = buildModel(
      folders.map((f) => ({ label: f, input: loadCompetition(join(root, f), RULE_SETS['2025'], { trials: 4 }).input, rules: RULE_SETS['2025'] })),
    );
    const cases = [
      { model: single, options: { resamples: 300, seed: 4, competing: ['p', 'q'] }, rankings: { ranking: ['r', 'p', 'q'] } },
      {
        model: models,
        options: { resamples: 300, seed: 5, mustBeat: 'zero-shot', perCompetition: [{ competing: ['x', 'y'] }, { competing: ['x', 'y'] }] },
        rankings: {
          ranking: ['y', 'x', 'zero-shot'],
          perCompetitionRanking: [
            ['x', 'zero-shot', 'y'],
            ['y', 'x', 'zero-shot'],
          ],
        },
      },
    ];
    for (const { model, options, rankings } of cases) {
      const known = runBootstrap(model, { ...options, ...rankings });
      expect(finishBootstrap(model, sampleBootstrap(model, options), rankings)).toEqual(known);
      expect(known.pairs.length).toBe(2);
    }
    const own = runBootstrap(models, { ...cases[1]!.options, ...cases[1]!.rankings }).perCompetition!;
    expect(own.map((r) => r.teams)).toEqual([
      ['x', 'y', 'zero-shot'],
      ['x', 'y', 'zero-shot'],
    ]);
    // A model's own pairs and letters are that model's only.
    expect(own[0]!.pairs.map((p) => [p.above, p.below])).toEqual([
      ['x', 'zero-shot'],
      ['zero-shot', 'y'],
    ]);
    expect(new Set(own[0]!.pairs.flatMap((p) => p.letters.map((l) => l.competition)))).toEqual(new Set(['qwen']));
  });
});

describe('sbeval score, 2025 layout: each model folder’s own ranking gets its intervals too', () => {
  it('writes them in each model’s result folder, from the same resamples as the total’s, with a section in its report', async () => {
    const root = join(tmp, 'per-model');
    const folders = ['alpha_7b', 'beta_3b'];
    folders.forEach((f, m) =>
      writeCompetition(
        join(root, f),
        randomCompetition({ teams: ['GridThinkers', 'BlockSmith', 'zero-shot'], letters: LETTERS, trials: 4, seed: 81 + m, failed: 0.1, cls: 16 }),
        { rules: 2025, trials: 4 },
      ),
    );
    const run = await runSbeval(['score', root, '--rules', '2025', '--trials', '4', '--baseline', 'zero-shot', '--resamples', '400']);
    expect(run.exitCode, run.stderr).toBe(0);
    const model = buildModel(
      folders.map((f) => ({ label: f, input: loadCompetition(join(root, f), RULE_SETS['2025'], { trials: 4 }).input, rules: RULE_SETS['2025'] })),
    );
    const officialRows = (dir: string) =>
      csv(dir, 'prompt_scores_ranks.csv')
        .slice(1)
        .map(([team, normalizedPromptScore, promptScore, rank]) => ({
          team: team!,
          normalizedPromptScore: normalizedPromptScore!,
          promptScore: promptScore!,
          rank: Number(rank),
        }));
    const rows = folders.map((f) => officialRows(join(root, f)));
    const result = runBootstrap(model, {
      resamples: 400,
      seed: 1,
      competing: ['BlockSmith', 'GridThinkers'],
      mustBeat: 'zero-shot',
      perCompetition: folders.map(() => ({ competing: ['BlockSmith', 'GridThinkers'] })),
      ranking: officialRows(root).map((r) => r.team),
      perCompetitionRanking: rows.map((list) => list.map((r) => r.team)),
    });
    const text = (dir: string, name: string) => readFileSync(join(dir, 'result', name), 'utf8');
    expect(text(root, 'score_intervals.csv')).toBe(
      intervalsCsv(summarize(result, officialRows(root), { competing: ['BlockSmith', 'GridThinkers'], mustBeat: 'zero-shot' }), EOL),
    );
    folders.forEach((f, m) => {
      const summary = summarize(result.perCompetition![m]!, rows[m]!, { competing: ['BlockSmith', 'GridThinkers'] });
      expect(text(join(root, f), 'score_intervals.csv')).toBe(intervalsCsv(summary, EOL));
      expect(text(join(root, f), 'rank_probabilities.csv')).toBe(rankProbabilitiesCsv(summary, EOL));
      // In the model's official order, with its official values as printed there.
      expect(
        csv(join(root, f), 'score_intervals.csv')
          .slice(1)
          .map((r) => [r[0], r[1], r[4]]),
      ).toEqual(rows[m]!.map((r) => [r.team, r.promptScore, r.normalizedPromptScore]));
      const report = text(join(root, f), 'report.md');
      expect(report).toContain('## Uncertainty of the ranking');
      expect(report).toContain(`Ranking uncertainty: ${summary.sentence}`);
      expect(report).toContain(`with model ${f}'s prompt scores normalised by its own total`);
    });
    // Off: every interval file goes, the model folders' too.
    expect((await runSbeval(['score', root, '--rules', '2025', '--trials', '4', '--baseline', 'zero-shot', '--uncertainty', 'off'])).exitCode).toBe(0);
    for (const dir of [root, ...folders.map((f) => join(root, f))]) expect(existsSync(join(dir, 'result', 'score_intervals.csv')), dir).toBe(false);
  }, 240_000);
});
