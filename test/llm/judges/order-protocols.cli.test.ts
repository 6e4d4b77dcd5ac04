import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSbeval } from '../../helpers/cli.js';
import { type FakeCall, FakeOllama } from '../../helpers/fake-ollama.js';
import { userText } from './helpers.js';

/**
 * `sbeval judge order` under its two protocols, through the real CLI against a fake judge over real
 * HTTP, on folders written here (drop programs: the judge sees drop grids).
 * - sbeval's protocol: byte-identical levels for 2, 3 and 4 teams and a judge that always prefers the
 *   first position (`Assistant 1 > Assistant 2 = …`): no team's score moves;
 * - the document's protocol with 10 / rank: a judge scripted from the rank counts the document gives
 *   for its example (reference/judges/ordering-judge.md) reproduces the example's figures, in
 *   metric.json and through a reimplementation of the published compute script reading review.jsonl.
 */
const JUDGE = 'qwen2.5:7b';
const ID = 'qwen2.5_7b';

/** Assistants' grids from the prompt, in the order shown. */
function shownGrids(user: string): string[] {
  return [...user.matchAll(/\[Assistant (\d+)\]\n([\s\S]*?)\n\[End of Assistant \1\]/g)].map((m) => m[2]!);
}

const gridBlocks = (grid: string) => (grid.match(/[#<^]/g) ?? []).length;

/** A chain from competition ranks of assistants 1..n. */
function chain(ranks: number[]): string {
  const order = ranks.map((r, i) => [r, i + 1] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return order.map(([r, k], j) => `${j === 0 ? '' : order[j - 1]![0] === r ? ' = ' : ' > '}Assistant ${k}`).join('');
}

function writeProgram(root: string, team: string, letter: string, trial: number, columns: number[]): void {
  const dir = join(root, team, 'intermediate', letter);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${team}_${letter}_${trial}.txt`), columns.map((c) => `drop_block('b11', ${c})`).join('\n'));
}

const readJsonl = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

let base: string;
let host: FakeOllama;

// The document's example: 70 questions, (reference rank, phoenix rank, count) consistent with every figure.
const ROWS: Array<[number, number, number]> = [
  [1, 1, 28],
  [1, 2, 15],
  [1, 3, 19],
  [1, 4, 3],
  [2, 1, 2],
  [2, 3, 1],
  [3, 1, 1],
  [4, 1, 1],
];
const PATTERN = ROWS.flatMap(([r, p, count]) =>
  Array.from({ length: count }, () => (r === p ? [1, 1, 3, 4] : [r, p, ...[1, 2, 3, 4].filter((x) => x !== r && x !== p)])),
);
const LETTERS = ['A', 'B', 'C', 'D', 'E', 'F', 'G'];
// Teams in the order the document lists them: the reference first, then the others by name.
const DOC_TEAMS = ['GPT35', 'Phoenix', 'Xeno', 'Yak'];

/** A judge that always prefers the first position and ties the rest: `Assistant 1 > Assistant 2 = Assistant 3`. */
function firstOnly(n: number): string {
  return `The first one looks best.\nAssistant 1 > ${Array.from({ length: n - 1 }, (_, i) => `Assistant ${i + 2}`).join(' = ')}`;
}

function judgeAnswer(call: FakeCall): string {
  const user = userText(call);
  const grids = shownGrids(user);
  // The document's example: blocks tell the teams apart (2: the reference, 3: Phoenix, 4 and 5: the
  // others); the reference's second block tells the trial (column trial + 1), the question the letter.
  const letter = /letter "([A-Z])"/.exec(user)![1]!;
  const blocks = grids.map(gridBlocks);
  const ground = grids[blocks.indexOf(2)]!.split('\n')
    .find((l) => l.startsWith(' 0 '))!
    .slice(3);
  const trial = ground.indexOf('#', 1) - 1;
  const ranks = PATTERN[LETTERS.indexOf(letter) * 10 + trial - 1]!;
  // Assistant k shows the team with k blocks (the fixed order): ranks in team order are assistant order.
  const byAssistant = blocks.map((b) => ranks[b - 2]!);
  // A partial comparison first, the answer, then a complete chain the judge "reconsiders": the
  // document's protocol takes the first complete chain.
  return `Assistant 1 > Assistant 2 on height.\nOverall: ${chain(byAssistant)}\nOn reflection: ${chain(byAssistant.map((r) => 5 - r))}`;
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sbeval-judge-protocols-'));
  host = await new FakeOllama({
    models: [JUDGE],
    answer: (call) => (userText(call).includes('Resemblance:') ? firstOnly(shownGrids(userText(call)).length) : judgeAnswer(call)),
  }).start();
});

afterAll(async () => {
  await host?.stop();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe("sbeval's protocol: a judge that always prefers the first position", () => {
  for (const n of [2, 3, 4]) {
    it(`moves no team's score with ${n} teams whose levels are byte-identical`, async () => {
      const root = join(base, `identical-${n}`);
      const teams = ['T1', 'T2', 'T3', 'T4'].slice(0, n);
      for (const team of teams)
        for (const letter of ['A', 'B']) for (const trial of [1, 2, 3]) writeProgram(root, team, letter, trial, [3, 5, 5, 9].slice(0, 1 + trial));
      const r = await runSbeval(['judge', 'order', root, '--judge', JUDGE, '--hosts', host.url, '--view', 'grid', '--perspective', 'resemblance']);
      expect(r.exitCode, r.stderr).toBe(0);
      const dir = join(root, 'result', 'judge-order', ID, 'resemblance');
      // The judge really is biased: "Assistant 1 > Assistant 2 = …" in every answer, and measured so.
      const calls = readJsonl(join(dir, 'presentations.jsonl'));
      // 6 questions (2 letters × 3 trials), each shown in the balanced design: both orders of a pair; for 3 or
      // more, every rotation and every rotation with the teams after the first reversed (docs/judges.md).
      expect(calls).toHaveLength(6 * (n === 2 ? 2 : 2 * n));
      for (const c of calls) expect(c.order).toEqual(c.order.map((_: number, i: number) => (i === 0 ? 1 : 2)));
      const bias = JSON.parse(readFileSync(join(dir, 'position-bias.json'), 'utf8'));
      expect(bias.byPosition[String(n)][0]).toBeGreaterThan(0);
      // … and every team has the same mean score.
      const rows = readFileSync(join(dir, 'scores.csv'), 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(','));
      expect(rows.map((row) => row[0])).toEqual(teams);
      for (const row of rows) expect(Number(row[2])).toBeCloseTo(Number(rows[0]![2]), 12);
    }, 120_000);
  }
});

/** The document's published compute script, reimplemented here from its behaviour (not its code): see the docstring. */
function computeScript(questionsFile: string, reviewFile: string): Record<string, any> {
  const questions = new Map(
    readJsonl(questionsFile)
      .sort((a, b) => a.question_id - b.question_id)
      .map((q) => [q.question_id, q]),
  );
  const review = new Map(
    readJsonl(reviewFile)
      .sort((a, b) => a.question_id - b.question_id)
      .map((r) => [r.question_id, r]),
  );
  const first = [...questions.keys()][0]!;
  const ref: string = review.get(first).metadata.model_ids[0];
  const models: string[] = review.get(first).metadata.model_ids.slice(1);
  let skip = 0;
  const beat = new Map<string, { ref: number; tie: number; model: number }>(models.map((m) => [m, { ref: 0, tie: 0, model: 0 }]));
  const order = new Map<string, number>();
  const score = new Map<string, number>();
  const add = (map: Map<string, number>, k: string, v: number) => map.set(k, (map.get(k) ?? 0) + v);
  for (const qid of questions.keys()) {
    const r = review.get(qid);
    if (r.category === 'coding' || r.category === 'math') {
      skip += 1;
      continue;
    }
    if (r.order.includes(-1)) continue;
    const refRank: number = r.order[0];
    models.forEach((m, i) => {
      const rank: number = r.order[i + 1];
      const b = beat.get(m)!;
      if (refRank < rank) b.ref += 1;
      else if (refRank > rank) b.model += 1;
      else b.tie += 1;
      add(order, m, rank);
      add(score, m, 10 / rank);
    });
    add(order, ref, refRank);
    add(score, ref, 10 / refRank);
  }
  const n = questions.size - skip;
  const out: Record<string, any> = {};
  for (const m of models) {
    const b = beat.get(m)!;
    out[m] = {
      winning: { 'gpt3.5': b.ref, tie: b.tie, model: b.model, '%model': b.model / n },
      order: { 'gpt3.5': order.get(ref)! / n, model: order.get(m)! / n },
      score: { 'gpt3.5': score.get(ref)! / n, model: score.get(m)! / n, '%model': score.get(m)! / score.get(ref)! },
    };
  }
  return out;
}

// The example's figures, as the document states them.
const FIGURES = {
  winning: [38, 28, 4, 0.05714285714285714],
  order: [1.1142857142857143, 1.9142857142857144],
  score: [9.583333333333334, 6.702380952380952, 0.6993788819875776],
};

function expectFigures(m: any, refKey: string): void {
  expect([m.winning[refKey], m.winning.tie, m.winning.model]).toEqual(FIGURES.winning.slice(0, 3));
  expect(m.winning['%model']).toBeCloseTo(FIGURES.winning[3]!, 14);
  expect(m.order[refKey]).toBeCloseTo(FIGURES.order[0]!, 14);
  expect(m.order.model).toBeCloseTo(FIGURES.order[1]!, 14);
  expect(m.score[refKey]).toBeCloseTo(FIGURES.score[0]!, 14);
  expect(m.score.model).toBeCloseTo(FIGURES.score[1]!, 14);
  expect(m.score['%model']).toBeCloseTo(FIGURES.score[2]!, 14);
}

describe("the document's protocol", () => {
  it('reproduces the example figures from its rank counts, in metric.json and through the compute script reading review.jsonl', async () => {
    const root = join(base, 'document');
    DOC_TEAMS.forEach((team, t) => {
      for (const letter of LETTERS) {
        for (let trial = 1; trial <= 10; trial += 1) {
          // The reference: a block in column 0 and one in column trial + 1 (the judge reads the trial
          // from it); team t: t + 2 blocks side by side.
          writeProgram(root, team, letter, trial, t === 0 ? [0, trial + 1] : Array.from({ length: t + 2 }, (_, i) => 10 + i));
        }
      }
    });
    const r = await runSbeval([
      'judge',
      'order',
      root,
      '--judge',
      JUDGE,
      '--hosts',
      host.url,
      '--view',
      'grid',
      '--protocol',
      'document',
      '--rank-scores',
      'reciprocal',
      '--reference',
      'GPT35',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const dir = join(root, 'result', 'judge-order', ID, 'general');
    const metric = JSON.parse(readFileSync(join(dir, 'metric.json'), 'utf8'));
    expectFigures(metric.Phoenix, 'GPT35');
    const script = computeScript(join(dir, 'questions.jsonl'), join(dir, 'review.jsonl'));
    expect(Object.keys(script)).toEqual(['Phoenix', 'Xeno', 'Yak']);
    expectFigures(script.Phoenix, 'gpt3.5');
    // One review per question, all teams in one order (the reference first), asked once.
    const reviews = readJsonl(join(dir, 'review.jsonl'));
    expect(reviews).toHaveLength(70);
    for (const rv of reviews) expect(rv.metadata.model_ids).toEqual(DOC_TEAMS);
    expect(host.calls.filter((c) => userText(c).includes(`[Assistant 4]`) && !userText(c).includes('Resemblance:'))).toHaveLength(70);
  }, 180_000);
});
