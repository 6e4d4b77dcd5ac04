import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleSources, runSbeval } from '../helpers/cli.js';
import { FakeOllama, type FakeCall } from '../helpers/fake-ollama.js';
import { readJournal, spawnSbeval, until, userText } from './helpers.js';

/**
 * `sbeval judge order` through the real CLI against a fake judge over real HTTP. The fake reads the
 * drop grids it is shown and prefers more blocks (ties as "="); under other perspectives it always
 * prefers the first answer (position bias), ties everything, or forgets the ordering on its first
 * try. Expected ranks, scores and win/tie/lose are computed here from the level files (blocks in the
 * XML), independently of the code under test.
 */
const JUDGE = 'qwen2.5:7b';
const TEAMS = ['BlockSmith', 'GridThinkers', 'PromptPilots'];
const LETTERS = ['I', 'L', 'O', 'T', 'U'];

/** Assistants' grids from the prompt, in the order shown. */
function shownGrids(user: string): string[] {
  return [...user.matchAll(/\[Assistant (\d+)\]\n([\s\S]*?)\n\[End of Assistant \1\]/g)].map((m) => m[2]!);
}

/** Blocks in a drop grid: one '#' per b11, one '<' per b31, one '^' per b13. */
function gridBlocks(grid: string): number {
  return (grid.match(/[#<^]/g) ?? []).length;
}

function orderLine(values: number[]): string {
  // Higher is better; equal values tie.
  const idx = values.map((v, i) => [v, i + 1] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  return idx.map(([v, k], j) => `${j === 0 ? '' : idx[j - 1]![0] === v ? ' = ' : ' > '}Assistant ${k}`).join('');
}

function judgeAnswer(call: FakeCall): string {
  const user = userText(call);
  const grids = shownGrids(user);
  const n = grids.length;
  const seed = Number(call.options.seed);
  if (user.includes('Resemblance:')) return `The first one is clearly the best.\n${Array.from({ length: n }, (_, i) => `Assistant ${i + 1}`).join(' > ')}`;
  if (user.includes('Stability:')) return `All of them are equally good.\n${Array.from({ length: n }, (_, i) => `Assistant ${i + 1}`).join(' = ')}`;
  if (user.includes('Creativity:') && seed === 6280) return 'They are all interesting in their own way; I cannot decide.';
  const counts = grids.map(gridBlocks);
  const analysis = counts.map((c, i) => `Assistant ${i + 1} uses ${c} blocks; Assistant ${i + 1} > nothing in particular.`).join('\n');
  return `${analysis}\nComparing them, Assistant 1 > Assistant 2 on height.\n${orderLine(counts)}`;
}

/** Blocks of each team's level (undefined: no level), from the level XML. */
function levelBlocks(root: string, team: string, letter: string, trial: number): number | undefined {
  const path = join(root, team, 'levels', letter, `${team}_${letter}_${trial}.xml`);
  if (!existsSync(path)) return undefined;
  return (readFileSync(path, 'utf8').match(/<Block /g) ?? []).length;
}

/** Competition ranks, more blocks first; teams without a level after every shown one. */
function expectedRanks(blocks: Map<string, number | undefined>): Map<string, number> {
  const shown = [...blocks].filter(([, b]) => b !== undefined) as Array<[string, number]>;
  const ranks = new Map<string, number>();
  for (const [team, b] of blocks) ranks.set(team, b === undefined ? shown.length + 1 : 1 + shown.filter(([, o]) => o > b).length);
  return ranks;
}

const score = (rank: number) => 10 - 2.5 * (rank - 1);

let base: string;
let host: FakeOllama;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sbeval-judge-order-'));
  const root = join(base, 'setup');
  copyExampleSources(root);
  for (const stage of ['extract', 'convert']) {
    const r = await runSbeval([stage, root]);
    expect(r.exitCode, r.stderr).toBe(0);
  }
  host = await new FakeOllama({ models: [JUDGE], answer: judgeAnswer }).start();
}, 300_000);

afterAll(async () => {
  await host?.stop();
  if (base) rmSync(base, { recursive: true, force: true });
});

function args(root: string, extra: string[] = []): string[] {
  return ['judge', 'order', root, '--judge', JUDGE, '--hosts', host.url, '--view', 'grid', ...extra];
}

const callKey = (call: FakeCall) => `${createHash('sha256').update(userText(call)).digest('hex')}#${String(call.options.seed)}`;
const counts = (keys: readonly string[]) => keys.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>());

function readJsonl(path: string): any[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** Numbers compared to 12 digits, everything else exactly. */
function close(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof expected === 'number') {
    expect(typeof actual, path).toBe('number');
    expect(actual as number, path).toBeCloseTo(expected, 12);
    return;
  }
  if (expected && typeof expected === 'object') {
    expect(Object.keys(actual as object).sort(), path).toEqual(Object.keys(expected).sort());
    for (const [k, v] of Object.entries(expected)) close((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
    return;
  }
  expect(actual, path).toEqual(expected);
}

describe('sbeval judge order on the example competition', () => {
  it('killed with SIGKILL and resumed asks nothing twice, and matches the block-count judge computed independently', async () => {
    const killedRoot = join(base, 'killed');
    const fullRoot = join(base, 'full');
    cpSync(join(base, 'setup'), killedRoot, { recursive: true });
    cpSync(join(base, 'setup'), fullRoot, { recursive: true });

    // The fake judge stops answering after 8 answers: the run is surely midway when it is killed,
    // however slow the machine.
    host.holdAfter(8);
    const child = spawnSbeval(args(killedRoot, ['--reference', 'BlockSmith']));
    await until(() => host.holding(), '8 answers', child);
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    host.release();
    // Requests the killed run sent just before dying are its calls, not the resumed run's.
    await until(() => host.idle(), 'the killed run\'s connections to close');
    const journal = readJournal(join(killedRoot, '.sbeval', 'judges', 'order-general.jsonl'));
    expect(journal.length).toBeGreaterThanOrEqual(4);

    const resumeStart = host.calls.length;
    const resumed = await runSbeval(args(killedRoot, ['--reference', 'BlockSmith']));
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const second = host.calls.slice(resumeStart);
    const fullStart = host.calls.length;
    const full = await runSbeval(args(fullRoot, ['--reference', 'BlockSmith']));
    expect(full.exitCode, full.stderr).toBe(0);
    const uninterrupted = host.calls.slice(fullStart);
    // The resumed run asked exactly the uninterrupted run's calls minus the journaled answers.
    expect(second.length).toBe(uninterrupted.length - journal.length);
    const remaining = counts(uninterrupted.map(callKey));
    for (const j of journal) {
      const match = uninterrupted.find((c) => judgeAnswer(c) === j.content && Number(c.options.seed) === j.seed && (remaining.get(callKey(c)) ?? 0) > 0);
      expect(match, `journaled answer ${j.key}`).toBeDefined();
      remaining.set(callKey(match!), remaining.get(callKey(match!))! - 1);
    }
    for (const [k, v] of remaining) if (v === 0) remaining.delete(k);
    expect(counts(second.map(callKey))).toEqual(remaining);

    const out = (root: string) => join(root, 'result', 'judge-order', 'general');
    for (const name of ['metric.json', 'review.jsonl', 'ordering.txt', 'scores.csv', 'levels.csv', 'position-bias.json', 'settings.json']) {
      expect(readFileSync(join(out(killedRoot), name), 'utf8'), name).toBe(readFileSync(join(out(fullRoot), name), 'utf8'));
    }

    // Independent expectations: per letter and trial, the three teams ranked by their blocks.
    const reviews = readJsonl(join(out(fullRoot), 'review.jsonl'));
    const perQuestion: Array<Map<string, number>> = [];
    let calls = 0;
    for (const letter of LETTERS) {
      for (let trial = 1; trial <= 3; trial += 1) {
        const blocks = new Map(TEAMS.map((t) => [t, levelBlocks(fullRoot, t, letter, trial)] as const));
        const shown = TEAMS.filter((t) => blocks.get(t) !== undefined);
        if (shown.length === 0) continue;
        const ranks = expectedRanks(blocks);
        perQuestion.push(ranks);
        const lines = reviews.filter((r) => r.letter === letter && r.trial === trial);
        if (shown.length === 1) {
          expect(lines).toEqual([]);
          continue;
        }
        calls += 2;
        expect(lines.map((l) => l.presentation)).toEqual([1, 2]);
        expect(lines[1].metadata.model_ids).toEqual([...lines[0].metadata.model_ids].reverse());
        for (const line of lines) {
          expect([...line.metadata.model_ids].sort()).toEqual(shown);
          expect(line.answer_ids).toEqual(line.metadata.model_ids.map((t: string) => `${t}_${letter}_${trial}`));
          const shownBlocks = new Map(line.metadata.model_ids.map((t: string) => [t, blocks.get(t)!] as const));
          const want = expectedRanks(shownBlocks as Map<string, number>);
          expect(line.order, `${letter} ${trial}`).toEqual(line.metadata.model_ids.map((t: string) => want.get(t)));
          expect(line).toMatchObject({ reviewer_id: JUDGE, lang: 'en', category: letter, ok: true, refused: [] });
        }
      }
    }
    expect(reviews).toHaveLength(calls);
    const metric = JSON.parse(readFileSync(join(out(fullRoot), 'metric.json'), 'utf8'));
    const ref = 'BlockSmith';
    const expected: Record<string, unknown> = {};
    for (const team of TEAMS.filter((t) => t !== ref)) {
      let refWins = 0;
      let ties = 0;
      let wins = 0;
      for (const q of perQuestion) {
        const a = q.get(ref)!;
        const b = q.get(team)!;
        if (a < b) refWins += 1;
        else if (a > b) wins += 1;
        else ties += 1;
      }
      const n = perQuestion.length;
      const mean = (f: (q: Map<string, number>) => number) => perQuestion.reduce((s, q) => s + f(q), 0) / n;
      const refScore = mean((q) => score(q.get(ref)!));
      const teamScore = mean((q) => score(q.get(team)!));
      expected[team] = {
        winning: { [ref]: refWins, tie: ties, model: wins, '%model': wins / n },
        order: { [ref]: mean((q) => q.get(ref)!), model: mean((q) => q.get(team)!) },
        score: { [ref]: refScore, model: teamScore, '%model': teamScore / refScore },
        questions: n,
      };
    }
    close(metric, expected);
    const bias = JSON.parse(readFileSync(join(out(fullRoot), 'position-bias.json'), 'utf8'));
    expect(bias).toMatchObject({ paired: calls / 2, identical: calls / 2, pairDisagreement: 0 });
    const csv = readFileSync(join(out(fullRoot), 'scores.csv'), 'utf8').split('\n');
    expect(csv[0]).toBe('team,questions,mean_score,mean_rank,reference,compared,reference_wins,ties,team_wins,share_won,score_ratio');
    expect(csv).toHaveLength(TEAMS.length + 2);
  }, 480_000);

  it('records position bias, ties of everything and unparsable first answers', async () => {
    const root = join(base, 'full');
    const run = async (perspective: string) => {
      const r = await runSbeval(args(root, ['--perspective', perspective]));
      expect(r.exitCode, r.stderr).toBe(0);
      const dir = join(root, 'result', 'judge-order', perspective);
      return { reviews: readJsonl(join(dir, 'review.jsonl')), bias: JSON.parse(readFileSync(join(dir, 'position-bias.json'), 'utf8')), metric: JSON.parse(readFileSync(join(dir, 'metric.json'), 'utf8')) };
    };

    // A judge that always prefers Assistant 1: the two orders disagree on every pair, and the
    // reversed presentation cancels the bias (every shown team averages the middle rank).
    const biased = await run('resemblance');
    const paired = biased.reviews.length / 2;
    expect(biased.bias).toMatchObject({ paired, identical: 0, pairDisagreement: 1 });
    const firstAdvantage = biased.reviews.map((r) => {
      const scores = r.order.map(score);
      return scores[0] - scores.reduce((a: number, b: number) => a + b, 0) / scores.length;
    });
    expect(biased.bias.firstPositionAdvantage).toBeCloseTo(firstAdvantage.reduce((a, b) => a + b, 0) / firstAdvantage.length, 12);
    expect(biased.bias.firstPositionAdvantage).toBeGreaterThan(0);
    for (const r of biased.reviews) expect(r.order).toEqual(r.order.map((_: number, i: number) => i + 1));

    // A judge that ties everything: every shown level ranked first, 10 points each.
    const tied = await run('stability');
    expect(tied.bias.allTied).toBe(tied.bias.presentations);
    for (const r of tied.reviews) expect(r.order.every((x: number) => x === 1)).toBe(true);
    for (const team of Object.keys(tied.metric)) expect(tied.metric[team].questions).toBeGreaterThan(0);

    // A judge whose first answer has no ordering: refused with its reason, asked again with seed + 1.
    const retried = await run('creativity');
    expect(retried.reviews.length).toBeGreaterThan(0);
    for (const r of retried.reviews) {
      expect(r).toMatchObject({ ok: true, seed: 6281 });
      expect(r.refused).toEqual([{ seed: 6280, reason: expect.stringMatching(/no ordering/), raw: expect.stringContaining('cannot decide') }]);
    }
  }, 360_000);
});

describe('sbeval judge order with more than 4 teams', () => {
  it('schedules groups of 4 that cover every pair of teams, each ordered correctly', async () => {
    const root = join(base, 'six');
    const teams = ['T1', 'T2', 'T3', 'T4', 'T5', 'T6'];
    const blocksOf = (t: number, letter: string, trial: number) => 1 + ((t * 3 + letter.charCodeAt(0) + trial * 5) % 4);
    for (const [t, team] of teams.entries()) {
      for (const letter of ['A', 'B']) {
        for (const trial of [1, 2]) {
          const dir = join(root, team, 'intermediate', letter);
          mkdirSync(dir, { recursive: true });
          const n = blocksOf(t, letter, trial);
          writeFileSync(join(dir, `${team}_${letter}_${trial}.txt`), Array.from({ length: n }, (_, i) => `drop_block('b11', ${2 + 2 * i})`).join('\n'));
        }
      }
    }
    const r = await runSbeval(args(root, ['--reference', 'T1']));
    expect(r.exitCode, r.stderr).toBe(0);
    const reviews = readJsonl(join(root, 'result', 'judge-order', 'general', 'review.jsonl'));
    for (const letter of ['A', 'B']) {
      for (const trial of [1, 2]) {
        const lines = reviews.filter((l) => l.letter === letter && l.trial === trial);
        const pairs = new Set<string>();
        for (const line of lines) {
          expect(line.metadata.model_ids).toHaveLength(4);
          const ids: string[] = line.metadata.model_ids;
          for (const a of ids) for (const b of ids) if (a < b) pairs.add(`${a}+${b}`);
          const want = expectedRanks(new Map(ids.map((team) => [team, blocksOf(teams.indexOf(team), letter, trial)] as const)));
          expect(line.order).toEqual(ids.map((team) => want.get(team)));
        }
        expect(pairs.size).toBe(15);
        // Two presentations per group, and the smallest covering of 6 teams by groups of 4 has 3 groups.
        expect(lines).toHaveLength(6);
      }
    }
    const metric = JSON.parse(readFileSync(join(root, 'result', 'judge-order', 'general', 'metric.json'), 'utf8'));
    expect(Object.keys(metric).sort()).toEqual(teams.slice(1));
    for (const team of teams.slice(1)) expect(metric[team].questions).toBeGreaterThan(0);
  }, 240_000);
});
