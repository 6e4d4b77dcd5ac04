import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleSources, runSbeval } from '../../helpers/cli.js';
import { type FakeCall, FakeOllama } from '../../helpers/fake-ollama.js';
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

/** Competition ranks, more blocks first; a team without a level is last: rank = the group's size. */
function expectedRanks(blocks: Map<string, number | undefined>): Map<string, number> {
  const shown = [...blocks].filter(([, b]) => b !== undefined) as Array<[string, number]>;
  const ranks = new Map<string, number>();
  for (const [team, b] of blocks) ranks.set(team, b === undefined ? blocks.size : 1 + shown.filter(([, o]) => o > b).length);
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

/** The judge's folder: the model name as a folder name. */
const ID = 'qwen2.5_7b';
const outOf = (root: string, perspective = 'general') => join(root, 'result', 'judge-order', ID, perspective);

const callKey = (call: FakeCall) => `${createHash('sha256').update(userText(call)).digest('hex')}#${String(call.options.seed)}`;
const counts = (keys: readonly string[]) => keys.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>());

function readJsonl(path: string): any[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
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
    await until(() => host.idle(), "the killed run's connections to close");
    const journal = readJournal(join(killedRoot, '.sbeval', 'judges', ID, 'order-general.jsonl'));
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

    const out = (root: string) => outOf(root);
    for (const name of [
      'metric.json',
      'presentations.jsonl',
      'ordering.txt',
      'scores.csv',
      'levels.csv',
      'position-bias.json',
      'settings.json',
      'summary.json',
    ]) {
      expect(readFileSync(join(out(killedRoot), name), 'utf8'), name).toBe(readFileSync(join(out(fullRoot), name), 'utf8'));
    }

    // Independent expectations: per letter and trial, the three teams ranked by their blocks.
    const reviews = readJsonl(join(out(fullRoot), 'presentations.jsonl'));
    const perQuestion: Array<Map<string, number>> = [];
    const perQuestionShown: number[] = [];
    let calls = 0;
    for (const letter of LETTERS) {
      for (let trial = 1; trial <= 3; trial += 1) {
        const blocks = new Map(TEAMS.map((t) => [t, levelBlocks(fullRoot, t, letter, trial)] as const));
        const shown = TEAMS.filter((t) => blocks.get(t) !== undefined);
        if (shown.length === 0) continue;
        const ranks = expectedRanks(blocks);
        perQuestion.push(ranks);
        perQuestionShown.push(shown.length);
        const lines = reviews.filter((r) => r.letter === letter && r.trial === trial);
        if (shown.length === 1) {
          expect(lines).toEqual([]);
          continue;
        }
        // m shown levels: the m rotations of one order, then (m ≥ 3) each with its tail reversed (schedule.ts).
        const m = shown.length;
        const count = m === 2 ? 2 : 2 * m;
        calls += count;
        expect(lines.map((l) => l.presentation)).toEqual(Array.from({ length: count }, (_, p) => p + 1));
        const first: string[] = lines[0].model_ids;
        const rotation = (p: number) => [...first.slice(p), ...first.slice(0, p)];
        lines.forEach((l, p) =>
          expect(l.model_ids).toEqual(
            p < m
              ? rotation(p)
              : [
                  rotation(p - m)[0],
                  ...rotation(p - m)
                    .slice(1)
                    .reverse(),
                ],
          ),
        );
        for (const line of lines) {
          expect([...line.model_ids].sort()).toEqual(shown);
          expect(line.answer_ids).toEqual(line.model_ids.map((t: string) => `${t}_${letter}_${trial}`));
          const shownBlocks = new Map(line.model_ids.map((t: string) => [t, blocks.get(t)!] as const));
          const want = expectedRanks(shownBlocks as Map<string, number>);
          expect(line.order, `${letter} ${trial}`).toEqual(line.model_ids.map((t: string) => want.get(t)));
          expect(line).toMatchObject({
            letter,
            trial,
            ok: true,
            refused: [],
            calls: [{ seed: 6280, promptTokens: expect.any(Number), completionTokens: expect.any(Number), digest: 'fake' }],
          });
          expect(existsSync(join(fullRoot, 'result', 'judge-prompts', `${line.prompt}.json`))).toBe(true);
        }
      }
    }
    expect(reviews).toHaveLength(calls);
    const metric = JSON.parse(readFileSync(join(out(fullRoot), 'metric.json'), 'utf8'));
    const ref = 'BlockSmith';
    // The terminal says what metric.json says: each team's win / tie / lose against the reference.
    for (const team of TEAMS.filter((t) => t !== ref)) {
      const w = metric[team].winning;
      expect(full.stdout).toMatch(new RegExp(`^  ${team} +vs ${ref}: win ${w.model}, tie ${w.tie}, lose ${w[ref]}, share won `, 'm'));
    }
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
    const asked = perQuestionShown.filter((n) => n >= 2).length;
    expect(bias).toMatchObject({ paired: asked, identical: asked, pairDisagreement: 0 });
    const csv = readFileSync(join(out(fullRoot), 'scores.csv'), 'utf8').split('\n');
    expect(csv[0]).toBe(
      'team,questions,mean_score,score_low,score_high,mean_rank,reference,compared,reference_wins,ties,team_wins,share_won,share_won_low,share_won_high,score_ratio,score_ratio_low,score_ratio_high',
    );
    expect(csv).toHaveLength(TEAMS.length + 2);
    // Intervals: seeded, around the mean.
    for (const line of csv.slice(1, -1)) {
      const [, , m, lo, hi] = line.split(',').map(Number);
      expect(lo! <= m! && m! <= hi!, line).toBe(true);
    }
  }, 480_000);

  it('records position bias, ties of everything and unparsable first answers', async () => {
    const root = join(base, 'full');
    const run = async (perspective: string) => {
      const r = await runSbeval(args(root, ['--perspective', perspective]));
      expect(r.exitCode, r.stderr).toBe(0);
      const dir = outOf(root, perspective);
      return {
        reviews: readJsonl(join(dir, 'presentations.jsonl')),
        bias: JSON.parse(readFileSync(join(dir, 'position-bias.json'), 'utf8')),
        summary: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')),
      };
    };

    // A judge that always prefers Assistant 1: presentations disagree on every pair, the first
    // position gains, and the rotations cancel it: every shown level of a question gets the same mean.
    const biased = await run('resemblance');
    // Each pair is shown N/2 times in each order over N presentations: (N/2)² of the C(N, 2) pairs of presentations disagree on it, more than half.
    expect(biased.bias.identical).toBe(0);
    expect(biased.bias.pairDisagreement).toBeGreaterThan(0.5);
    expect(biased.bias.pairDisagreement).toBeLessThanOrEqual(1);
    expect(biased.bias.firstPositionAdvantage).toBeGreaterThan(0);
    expect(biased.bias.byPosition['3'][0]).toBeGreaterThan(0);
    for (const r of biased.reviews) expect(r.order).toEqual(r.order.map((_: number, i: number) => i + 1));
    const byQuestion = new Map<number, Map<string, number[]>>();
    for (const r of biased.reviews) {
      const q = byQuestion.get(r.question_id) ?? new Map<string, number[]>();
      r.model_ids.forEach((t: string, i: number) => q.set(t, [...(q.get(t) ?? []), score(r.order[i])]));
      byQuestion.set(r.question_id, q);
    }
    for (const q of byQuestion.values()) {
      const means = [...q.values()].map((v) => v.reduce((a, b) => a + b, 0) / v.length);
      for (const m of means) expect(m).toBeCloseTo(means[0]!, 12);
    }

    // A judge that ties everything: every shown level ranked first, 10 points each.
    const tied = await run('stability');
    expect(tied.bias.allTied).toBe(tied.bias.presentations);
    for (const r of tied.reviews) expect(r.order.every((x: number) => x === 1)).toBe(true);

    // A judge whose first answer has no ordering: refused with its reason, asked again with seed + 1.
    const retried = await run('creativity');
    expect(retried.reviews.length).toBeGreaterThan(0);
    for (const r of retried.reviews) {
      expect(r).toMatchObject({ ok: true, seed: 6281 });
      expect(r.refused).toEqual([{ seed: 6280, reason: expect.stringMatching(/no ordering/), raw: expect.stringContaining('cannot decide') }]);
    }
    expect(retried.summary.failures).toMatchObject({ refused: 0, unfinished: 0 });
  }, 360_000);

  it('asks again about exactly the questions whose levels changed', async () => {
    const root = join(base, 'changed');
    cpSync(join(base, 'full'), root, { recursive: true });
    const before = readJsonl(join(outOf(root), 'presentations.jsonl'));
    // A new drop program for one level: one block more.
    const program = join(root, 'GridThinkers', 'intermediate', 'L', 'GridThinkers_L_1.txt');
    writeFileSync(program, `${readFileSync(program, 'utf8').trimEnd()}\ndrop_block('b11', 18)\n`);
    const start = host.calls.length;
    const r = await runSbeval(args(root, ['--reference', 'BlockSmith']));
    expect(r.exitCode, r.stderr).toBe(0);
    const asked = host.calls.slice(start);
    const changed = before.filter((l) => l.letter === 'L' && l.trial === 1);
    expect(asked).toHaveLength(changed.length);
    expect(asked.length).toBeGreaterThan(0);
    for (const call of asked) expect(userText(call)).toContain('[Question]\nBuild a Science Birds level whose structure looks like the upper-case letter "L"');
    const after = readJsonl(join(outOf(root), 'presentations.jsonl'));
    expect(after.filter((l) => !(l.letter === 'L' && l.trial === 1)).map((l) => l.text)).toEqual(
      before.filter((l) => !(l.letter === 'L' && l.trial === 1)).map((l) => l.text),
    );
  }, 240_000);
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
    const reviews = readJsonl(join(outOf(root), 'presentations.jsonl'));
    for (const letter of ['A', 'B']) {
      for (const trial of [1, 2]) {
        const lines = reviews.filter((l) => l.letter === letter && l.trial === trial);
        const pairs = new Set<string>();
        const groups = new Set<string>();
        for (const line of lines) {
          expect(line.model_ids).toHaveLength(4);
          // The reference is in every group.
          expect(line.model_ids).toContain('T1');
          groups.add([...line.model_ids].sort().join('+'));
          const ids: string[] = line.model_ids;
          for (const a of ids) for (const b of ids) if (a < b) pairs.add(`${a}+${b}`);
          const want = expectedRanks(new Map(ids.map((team) => [team, blocksOf(teams.indexOf(team), letter, trial)] as const)));
          expect(line.order).toEqual(ids.map((team) => want.get(team)));
        }
        expect(pairs.size).toBe(15);
        // Eight presentations per group of 4; the 5 other teams covered by triples (with T1 in each): 4 groups.
        expect(lines).toHaveLength(8 * groups.size);
        expect(groups.size).toBe(4);
      }
    }
    const metric = JSON.parse(readFileSync(join(outOf(root), 'metric.json'), 'utf8'));
    expect(Object.keys(metric).sort()).toEqual(teams.slice(1));
    for (const team of teams.slice(1)) expect(metric[team].questions).toBeGreaterThan(0);
  }, 240_000);
});
