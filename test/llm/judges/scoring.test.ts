import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dropBlocks } from '../../../levels/drop.js';
import { parseDropProgram } from '../../../levels/program.js';
import {
  balancedOrders,
  buildOrderPrompt,
  buildRubricPrompt,
  chainRanks,
  checkRubric,
  checkTemplate,
  combineQuestion,
  competitionRanks,
  coveringGroups,
  documentMetrics,
  exampleChain,
  gridView,
  intervalAlpha,
  krippendorffAlpha,
  metricJson,
  orderingText,
  parseOrder,
  parseRubricAnswer,
  pearson,
  positionBias,
  type Question,
  type Rubric,
  rankScore,
  reachableScores,
  referenceGroups,
  renderTemplate,
  rubricForLetter,
  spearman,
  stripThinking,
  teamSummaries,
  tierScore,
} from '../../../llm/judges/scoring/index.js';
import { pairAgreement } from '../../../llm/judges/scoring/judge-agreement.js';

const RUBRIC: Rubric = {
  question: 'A level that looks like {letter}.',
  levels: { 100: ['perfect {letter}'], 50: ['a', 'b', 'c'], 25: ['x', 'y'] },
};

describe('tiered rubric', () => {
  it('takes 100 first, then n × 50 capped at 100, then n × 25, else 0', () => {
    expect(tierScore({ 100: [true], 50: [true, true, true], 25: [true, true] })).toEqual({ score: 100, tier: 100 });
    expect(tierScore({ 100: [false], 50: [true, false, false], 25: [true, true] })).toEqual({ score: 50, tier: 50 });
    // Three 50-items met: 150 would exceed the range; the cap makes it 100 from the 50 level.
    expect(tierScore({ 100: [false], 50: [true, true, true], 25: [] })).toEqual({ score: 100, tier: 50 });
    expect(tierScore({ 100: [false], 50: [false, false, false], 25: [true, true] })).toEqual({ score: 50, tier: 25 });
    expect(tierScore({ 100: [false], 50: [false], 25: [false, true] })).toEqual({ score: 25, tier: 25 });
    expect(tierScore({ 100: [false], 50: [false], 25: [false] })).toEqual({ score: 0, tier: 0 });
    // Empty levels are skipped.
    expect(tierScore({ 100: [], 50: [], 25: [true] })).toEqual({ score: 25, tier: 25 });
  });

  it('knows which scores a rubric can produce', () => {
    expect(reachableScores(RUBRIC)).toEqual([0, 25, 50, 100]);
    expect(reachableScores({ question: 'q', levels: { 100: [], 50: ['a'], 25: ['x', 'y', 'z'] } })).toEqual([0, 25, 50, 75]);
  });

  it('fills {letter} and rejects unusable rubrics', () => {
    const l = rubricForLetter(RUBRIC, 'L');
    expect(l.question).toBe('A level that looks like L.');
    expect(l.levels[100]).toEqual(['perfect L']);
    expect(checkRubric(RUBRIC)).toBeUndefined();
    expect(checkRubric({ question: 'q', levels: { 100: [], 50: ['1', '2', '3', '4', '5'], 25: [] } })).toMatch(/at most 4/);
    expect(checkRubric({ question: 'q', levels: { 100: [], 50: [], 25: [] } })).toMatch(/no items/);
  });
});

describe('rubric answers', () => {
  const full = (score: string, verdicts = '[100.1] not met\n[50.1] met\n[50.2] not met\n[50.3] not met\n[25.1] met\n[25.2] met') =>
    `Sure! Here is my evaluation.\n<analysis>\n${verdicts}\n</analysis>\n<score>\n${score}\n</score>\nHope this helps.`;

  it('reads a well-formed answer with text around it, and recomputes the score from the verdicts', () => {
    const answer = parseRubricAnswer(full('50'), RUBRIC);
    expect(answer).toMatchObject({ ok: true, score: 50, itemsScore: 50, consistent: true });
    if (answer.ok) expect(answer.verdicts).toEqual({ 100: [false], 50: [true, false, false], 25: [true, true] });
  });

  it('flags a score that contradicts the judge’s own verdicts, without rejecting it', () => {
    expect(parseRubricAnswer(full('100'), RUBRIC)).toMatchObject({ ok: true, score: 100, itemsScore: 50, consistent: false });
  });

  it('tolerates case, emphasis, "/100" and reasoning blocks', () => {
    const text = '<think>maybe <score>0</score></think><ANALYSIS>fine</ANALYSIS>\n< score >**25**/100</score>';
    expect(parseRubricAnswer(text, RUBRIC)).toMatchObject({ ok: true, score: 25, verdicts: undefined, consistent: undefined });
  });

  it('fails with a reason on missing tags, extra text inside the score, and numbers out of range', () => {
    const reason = (text: string) => {
      const a = parseRubricAnswer(text, RUBRIC);
      return a.ok ? 'ok' : a.reason;
    };
    expect(reason('I think it is a 50.')).toMatch(/no <score>/);
    expect(reason('<analysis>x</analysis><score>50')).toMatch(/never closed/);
    expect(reason('<score>50</score>')).toMatch(/no <analysis>/);
    expect(reason('<analysis> </analysis><score>50</score>')).toMatch(/empty/);
    expect(reason('<analysis>x</analysis><score>50 because two items</score>')).toMatch(/not a number alone/);
    expect(reason('<analysis>x</analysis><score>150</score>')).toMatch(/outside 0–100/);
    expect(reason('<analysis>x</analysis><score>60</score>')).toMatch(/multiple of 25/);
    expect(reason('<analysis>x</analysis><score>75</score>')).toMatch(/cannot come from this rubric/);
    expect(reason('<analysis>x</analysis><score>50</score><score>25</score>')).toMatch(/disagree/);
    expect(stripThinking('a<think>b')).toBe('a');
  });

  it('scores the 25 level n × 20 with --low-tier n20, and accepts the scores that gives', () => {
    expect(tierScore({ 100: [false], 50: [false, false, false], 25: [true, true] }, 20)).toEqual({ score: 40, tier: 25 });
    expect(reachableScores(RUBRIC, 20)).toEqual([0, 20, 40, 50, 100]);
    const answer = '<analysis>x</analysis><score>40</score>';
    expect(parseRubricAnswer(answer, RUBRIC, 20)).toMatchObject({ ok: true, score: 40 });
    expect(parseRubricAnswer(answer, RUBRIC)).toMatchObject({ ok: false, reason: expect.stringMatching(/multiple of 25/) });
  });

  it("follows the document's procedure step by step in the document's prompt, and renders a template of one's own", () => {
    const doc = buildRubricPrompt(rubricForLetter(RUBRIC, 'T'), { kind: 'grid', text: 'GRID' }, { protocol: 'document', lowTier: 20 });
    const steps = [
      'Step 1. Start at the 100 level',
      'Step 2. Otherwise go to the 50 level',
      'Step 3. Otherwise go to the 25 level',
      'Step 4. If a meets no item',
    ];
    let at = -1;
    for (const step of steps) {
      const next = doc.user.indexOf(step);
      expect(next, step).toBeGreaterThan(at);
      at = next;
    }
    expect(doc.user).toContain('n × 20');
    expect(doc.user).toContain('  (2) b');
    const template = { system: 'Judge {{strictly}}.', user: 'Q: {question}\nA: {answer}\nCriteria:\n{criteria_50}\nLow: {low_tier}' };
    expect(checkTemplate(template)).toBeUndefined();
    const own = buildRubricPrompt(rubricForLetter(RUBRIC, 'T'), { kind: 'grid', text: 'GRID' }, { protocol: 'sbeval', lowTier: 25, template });
    expect(own.system).toBe('Judge {strictly}.');
    expect(own.user).toContain('Q: A level that looks like T.');
    expect(own.user).toContain('GRID');
    expect(own.user).toContain('50 points:\n  (1) a\n  (2) b\n  (3) c');
    expect(own.user).toContain('Low: 25');
    expect(checkTemplate({ user: 'Q {question} {answr}' })).toMatch(/unknown placeholder \{answr\}/);
    expect(checkTemplate({ user: 'Q {question}' })).toMatch(/no \{answer\}/);
    expect(renderTemplate('{{x}}', {})).toBe('{x}');
  });

  it('builds a prompt with the question, the criteria numbered per level, the procedure and the output form', () => {
    const prompt = buildRubricPrompt(rubricForLetter(RUBRIC, 'T'), { kind: 'grid', text: 'GRID' });
    expect(prompt.user).toContain('A level that looks like T.');
    expect(prompt.user).toContain('[50.3] c');
    expect(prompt.user).toContain('GRID');
    expect(prompt.user).toMatch(/<score>\nthe number only\n<\/score>$/);
    expect(prompt.images).toEqual([]);
    const png = new Uint8Array([1, 2, 3]);
    expect(buildRubricPrompt(RUBRIC, { kind: 'image', png }).images).toEqual([png]);
  });
});

describe('grid view', () => {
  it('draws every block with its own shape after the left shift', () => {
    const structure = dropBlocks(parseDropProgram("drop_block('b13', 3)\ndrop_block('b31', 5)\ndrop_block('b11', 3)\n", 'drop_block'));
    const rows = gridView(structure).split('\n');
    // Shift 3: b13 at column 0 (rows 0-2), b31 centred on column 2, b11 on top of the b13 (row 3).
    expect(rows[15 - 3]).toBe(' 3 #...................');
    expect(rows[15 - 2]).toBe(' 2 ^...................');
    expect(rows[15 - 1]).toBe(' 1 |...................');
    expect(rows[15 - 0]).toBe(' 0 v<=>................');
    expect(rows.at(-1)).toBe('   01234567890123456789');
  });
});

describe('ordering answers', () => {
  it('reads ties as shared ranks, the reference example included', () => {
    expect(parseOrder('Assistant 2 > Assistant 1 = Assistant 3 > Assistant 4', 4)).toMatchObject({ ok: true, ranks: [2, 1, 2, 4] });
    expect(parseOrder('Assistant 1 = Assistant 2 = Assistant 3', 3)).toMatchObject({ ok: true, ranks: [1, 1, 1] });
    expect(chainRanks('Assistant 3 < Assistant 1 < Assistant 2', 3)).toEqual([2, 1, 3]);
  });

  it('takes the last complete ordering of a rambling answer and normalises the operators', () => {
    const text = 'Assistant 1 > Assistant 2 on stability.\nOverall:\n**Assistant 3** >= Assistant 2 == Assistant 1';
    expect(parseOrder(text, 3)).toMatchObject({ ok: true, ranks: [2, 2, 1] });
  });

  it('fails with a reason when no ordering names every assistant once', () => {
    expect(parseOrder('They are all nice.', 3)).toMatchObject({ ok: false, reason: expect.stringMatching(/no ordering/) });
    expect(parseOrder('Assistant 1 > Assistant 2', 3)).toMatchObject({ ok: false, reason: expect.stringMatching(/Assistant 1, Assistant 2 instead/) });
    expect(parseOrder('Assistant 1 > Assistant 1 > Assistant 2', 3)).toMatchObject({ ok: false });
    expect(parseOrder('Assistant 1 > Assistant 2 < Assistant 3', 3)).toMatchObject({ ok: false });
  });

  it('scores ranks 10 / 7.5 / 5 / 2.5 and ranks values competition-style', () => {
    expect([1, 2, 3, 4].map((r) => rankScore(r))).toEqual([10, 7.5, 5, 2.5]);
    expect([1, 2, 3, 4].map((r) => rankScore(r, 'reciprocal'))).toEqual([10, 5, 10 / 3, 2.5]);
    expect(() => rankScore(5)).toThrow(/ranks 1–4/);
    expect(rankScore(1.5)).toBe(8.75);
    expect(competitionRanks([3, 1, 3, 7])).toEqual([2, 1, 2, 4]);
  });

  it('builds a prompt with every assistant between its markers and the ordering instruction', () => {
    const p = buildOrderPrompt('General for {letter}.', 'Q?', 'L', [
      { kind: 'grid', text: 'G1' },
      { kind: 'grid', text: 'G2' },
      { kind: 'grid', text: 'G3' },
    ]);
    expect(p.user).toContain('[Assistant 3]\nG3\n[End of Assistant 3]');
    expect(p.user).toContain('General for L.');
    expect(p.user).toContain('order the three assistants');
  });
});

describe('schedules', () => {
  const pairsCovered = (groups: number[][], n: number) => {
    const covered = new Set<string>();
    for (const g of groups) for (const a of g) for (const b of g) if (a < b) covered.add(`${a}:${b}`);
    return covered.size === (n * (n - 1)) / 2;
  };

  it('puts up to 4 teams in one group and covers every pair of more teams with groups of 4', () => {
    expect(coveringGroups(3, 1)).toEqual([[0, 1, 2]]);
    // Covering numbers C(n, 4, 2) (Mills 1979): the fewest groups of 4 that cover every pair of n teams.
    const smallest: Record<number, number> = { 5: 3, 6: 3, 7: 5, 8: 6, 9: 8, 10: 9, 11: 11, 12: 12 };
    for (let n = 5; n <= 12; n += 1) {
      for (const seed of [1, 2, 3]) {
        const groups = coveringGroups(n, seed);
        expect(groups.every((g) => g.length === 4 && new Set(g).size === 4)).toBe(true);
        expect(pairsCovered(groups, n)).toBe(true);
        expect(groups.length).toBeGreaterThanOrEqual(smallest[n]!);
        expect(groups.length).toBeLessThanOrEqual(smallest[n]! + (n <= 9 ? 0 : 2));
      }
    }
    expect(coveringGroups(9, 7)).toEqual(coveringGroups(9, 7));
    expect(coveringGroups(9, 7)).not.toEqual(coveringGroups(9, 8));
  });

  it('shows a group of m in its rotations and their tail reversals: every member equally often in every position, every pair equally often in each order, also given the first', () => {
    for (let m = 2; m <= 6; m += 1) {
      const group = ['A', 'B', 'C', 'D', 'E', 'F'].slice(0, m);
      const orders = balancedOrders(group, 5);
      expect(orders).toHaveLength(m === 2 ? 2 : 2 * m);
      for (const order of orders) expect([...order].sort()).toEqual(group);
      const times = orders.length / m;
      for (let pos = 0; pos < m; pos += 1) for (const t of group) expect(orders.filter((o) => o[pos] === t)).toHaveLength(times);
      for (const a of group) for (const b of group) if (a !== b) expect(orders.filter((o) => o.indexOf(a) < o.indexOf(b))).toHaveLength(orders.length / 2);
      for (const first of group) {
        const starting = orders.filter((o) => o[0] === first);
        for (const a of group)
          for (const b of group)
            if (a !== b && a !== first && b !== first) expect(starting.filter((o) => o.indexOf(a) < o.indexOf(b)).length * 2).toBe(starting.length);
      }
      expect(balancedOrders(group, 5)).toEqual(orders);
    }
  });

  it('sizes the format example of the prompt to the group', () => {
    expect(exampleChain(2)).toBe('Assistant 2 > Assistant 1');
    expect(exampleChain(3)).toBe('Assistant 2 > Assistant 1 = Assistant 3');
    expect(exampleChain(5)).toBe('Assistant 2 > Assistant 1 = Assistant 3 > Assistant 4 > Assistant 5');
    for (let n = 2; n <= 6; n += 1) {
      const views = Array.from({ length: n }, () => ({ kind: 'grid' as const, grid: '#' }));
      const { user } = buildOrderPrompt('General: {letter}', 'Q', 'A', views as never);
      const example = /a single line such as "([^"]+)"/.exec(user)?.[1] ?? '';
      expect(parseOrder(example, n).ok, `n = ${n}`).toBe(true);
      expect(example).not.toContain(`Assistant ${n + 1}`);
    }
  });

  it('puts the reference in every group and still covers every pair of the other teams', () => {
    for (let n = 5; n <= 10; n += 1) {
      const groups = referenceGroups(n, 2, 7);
      expect(groups.every((g) => g.includes(2) && g.length === 4 && new Set(g).size === 4)).toBe(true);
      expect(pairsCovered(groups, n)).toBe(true);
    }
    expect(referenceGroups(4, 1, 7)).toEqual([[0, 1, 2, 3]]);
  });
});

describe('position bias under the balanced presentations', () => {
  // A judge that sees identical levels and prefers a position: always Assistant 1 first (strictly
  // ordered by position), or only the first better and the rest tied.
  const strict = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
  const firstOnly = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 ? 1 : 2));
  for (const judge of [strict, firstOnly]) {
    for (const n of [2, 3, 4]) {
      it(`moves no team's score for a group of ${n} (${judge === strict ? 'strict by position' : 'first only'})`, () => {
        const teams = ['T1', 'T2', 'T3', 'T4'].slice(0, n);
        const presentations = balancedOrders(teams, 11).map((order) => ({ order, ranks: judge(n) }));
        for (const scale of ['table', 'reciprocal'] as const) {
          const result = combineQuestion({ id: 1, letter: 'A', trial: 1, teams, presentations }, scale);
          const scores = teams.map((t) => result.scores.get(t)!);
          for (const s of scores) expect(s).toBeCloseTo(scores[0]!, 12);
        }
        // The old design (a shuffle and its reverse) leaves the middle of an odd group in the middle:
        // the issue's 7.5 for the middle team and 8.75 for the outer ones.
        if (n === 3 && judge === firstOnly) {
          const two = [teams, [...teams].reverse()].map((order) => ({ order, ranks: judge(n) }));
          const old = combineQuestion({ id: 1, letter: 'A', trial: 1, teams, presentations: two });
          expect([old.scores.get('T1'), old.scores.get('T2'), old.scores.get('T3')]).toEqual([8.75, 7.5, 8.75]);
        }
        const bias = positionBias([{ id: 1, letter: 'A', trial: 1, teams, presentations }]);
        expect(bias.byPosition[String(n)]![0]).toBeGreaterThan(0);
      });
    }
  }
});

describe('two byte-identical teams under the balanced design', () => {
  // A judge that orders by quality and breaks ties towards the earlier level; the second also adds a
  // bonus to whatever is shown first. Its answer is text, read by the real parser.
  const quality: Record<string, number> = { Twin: 5, TwinCopy: 5, Low: 1, High: 9, Mid: 4, Top: 7 };
  const answer = (order: readonly string[], bonus: number) => {
    const value = order.map((t, i) => quality[t]! + (i === 0 ? bonus : 0));
    const idx = order.map((_, i) => i).sort((a, b) => value[b]! - value[a]! || a - b);
    return `Thoughts.\n${idx.map((i) => `Assistant ${i + 1}`).join(' > ')}`;
  };
  const ranksOf = (a: ReturnType<typeof parseOrder>) => (a.ok ? a.ranks : undefined);
  for (const bonus of [0, 3]) {
    for (let n = 2; n <= 6; n += 1) {
      it(`get identical scores in a group of ${n} (${bonus === 0 ? 'ties towards the earlier level' : 'a first-position bonus'})`, () => {
        const teams = ['Twin', 'TwinCopy', 'Low', 'High', 'Mid', 'Top'].slice(0, n);
        const question = (orders: string[][]): Question => ({
          id: 1,
          letter: 'A',
          trial: 1,
          teams,
          presentations: orders.map((order) => ({ order, ranks: ranksOf(parseOrder(answer(order, bonus), n)) })),
        });
        for (const seed of [1, 2, 3]) {
          const result = combineQuestion(question(balancedOrders(teams, seed)), 'reciprocal');
          expect(result.scores.get('Twin'), `seed ${seed}`).toBeCloseTo(result.scores.get('TwinCopy')!, 12);
          expect(result.ranks.get('Twin')).toBeCloseTo(result.ranks.get('TwinCopy')!, 12);
        }
        // Rotations of one order alone put every team in every position once but not every pair in both
        // orders: for a group of 3 the tie-breaking judge splits the twins.
        if (n === 3 && bonus === 0) {
          const rotations = [0, 1, 2].map((p) => [...teams.slice(p), ...teams.slice(0, p)]);
          const old = combineQuestion(question(rotations), 'reciprocal');
          expect(old.scores.get('Twin')).not.toBeCloseTo(old.scores.get('TwinCopy')!, 6);
        }
      });
    }
  }
});

describe('agreement between judges', () => {
  const source = (name: string, scale: { min: number; max: number }, scores: Record<string, number>, missing: string[] = []) => ({
    name,
    scale,
    scores: new Map(Object.entries(scores)),
    missing: new Set(missing),
  });
  it('leaves out levels missing for every judge, α on one scale, Spearman’s ρ across scales', () => {
    // Three real levels on which the judges disagree in order, two that do not exist (both score them 0, the worst).
    const a = source('rubric:a', { min: 0, max: 100 }, { x: 80, y: 50, z: 60, gone1: 0, gone2: 0 }, ['gone1', 'gone2']);
    const b = source('rubric:b', { min: 0, max: 100 }, { x: 60, y: 70, z: 50, gone1: 0, gone2: 0 }, ['gone1', 'gone2']);
    const ab = pairAgreement(a, b, 1);
    expect(ab.units).toBe(3);
    expect(ab.statistic).toBe('alpha');
    expect(ab.value).toBeCloseTo(
      krippendorffAlpha(
        [
          [80, 60],
          [50, 70],
          [60, 50],
        ],
        'interval',
      ).alpha!,
      12,
    );
    // With the missing levels in, the two shared zeros would make the judges look like they agree.
    expect(
      krippendorffAlpha(
        [
          [80, 60],
          [50, 70],
          [60, 50],
          [0, 0],
          [0, 0],
        ],
        'interval',
      ).alpha!,
    ).toBeGreaterThan(0.5);
    expect(ab.value!).toBeLessThan(0.5);
    // Missing for one judge only: a judge's verdict on a level the other has, so it stays.
    expect(pairAgreement(a, source('rubric:c', { min: 0, max: 100 }, { x: 1, y: 2, z: 3, gone1: 4, gone2: 5 }), 1).units).toBe(5);
    // Different scales: a rank correlation, unchanged by any monotone map of either.
    const order = source('order:j:general', { min: 2.5, max: 10 }, { x: 10, y: 5, z: 7.5, gone1: 2.5, gone2: 2.5 }, ['gone1', 'gone2']);
    const cross = pairAgreement(a, order, 1);
    expect(cross.statistic).toBe('spearman');
    expect(cross.units).toBe(3);
    expect(cross.value).toBeCloseTo(1, 12);
  });
});

describe('ordering metrics', () => {
  // Two questions, three teams; the reference is R.
  const questions: Question[] = [
    {
      id: 1,
      letter: 'L',
      trial: 1,
      teams: ['A', 'B', 'R'],
      presentations: [
        { order: ['R', 'A', 'B'], ranks: [1, 2, 3] }, // R > A > B
        { order: ['B', 'A', 'R'], ranks: [3, 1, 1] }, // A = R > B
      ],
    },
    {
      id: 2,
      letter: 'L',
      trial: 2,
      teams: ['A', 'B', 'R'],
      presentations: [
        { order: ['A', 'R'], ranks: [1, 2] }, // B has no level: ranked 3
        { order: ['R', 'A'], ranks: [2, 1] }, // the same ordering, seen the other way round
      ],
    },
  ];
  const results = questions.map((q) => combineQuestion(q));

  it('ranks every member of a refused presentation last, and a missing one last whatever the others had', () => {
    const q: Question = {
      id: 3,
      letter: 'L',
      trial: 3,
      teams: ['A', 'B', 'C', 'R'],
      presentations: [
        { order: ['A', 'R'], ranks: [1, 2] },
        { order: ['R', 'A'], ranks: undefined },
      ],
    };
    const r = combineQuestion(q);
    // A: 1 then 4 (refused); R: 2 then 4; B and C have no level: 4 both times, though only 2 were shown.
    expect(Object.fromEntries(r.ranks)).toEqual({ A: 2.5, R: 3, B: 4, C: 4 });
    expect(r.scores.get('B')).toBe(2.5);
  });

  it('averages ranks and scores over the two presentations, a missing level ranked last', () => {
    expect(Object.fromEntries(results[0]!.ranks)).toEqual({ A: 1.5, B: 3, R: 1 });
    expect(Object.fromEntries(results[0]!.scores)).toEqual({ A: 8.75, B: 5, R: 10 });
    expect(Object.fromEntries(results[1]!.ranks)).toEqual({ A: 1, B: 3, R: 2 });
  });

  it('writes metric.json in the reference shape, win/tie/lose against the reference', () => {
    const metric = metricJson(results, ['A', 'B', 'R'], 'R') as Record<string, any>;
    // A vs R: q1 R 1 < A 1.5 → R wins; q2 A 1 < R 2 → A wins.
    expect(metric.A.winning).toEqual({ R: 1, tie: 0, model: 1, '%model': 0.5 });
    expect(metric.A.order).toEqual({ R: 1.5, model: 1.25 });
    expect(metric.A.score).toEqual({ R: (10 + 7.5) / 2, model: (8.75 + 10) / 2, '%model': 9.375 / 8.75 });
    expect(metric.B.winning).toEqual({ R: 2, tie: 0, model: 0, '%model': 0 });
    expect(metric.R).toBeUndefined();
    const horiz = metricJson(results, ['A', 'B', 'R'], undefined) as Record<string, any>;
    expect(horiz.B).toEqual({ order: 3, score: 5, questions: 2 });
    const summaries = teamSummaries(results, ['A', 'B', 'R']);
    expect(orderingText(summaries).split('\n')[1]).toMatch(/^A\s+1\.25\s+1$/);
  });

  it('measures how much the order of presentation changed the answers', () => {
    const bias = positionBias(questions);
    expect(bias.paired).toBe(2);
    expect(bias.identical).toBe(1);
    // q1: pairs (R,A) differ, (R,B) same, (A,B) same → 1/3; q2: the one pair agrees → 0.
    expect(bias.pairDisagreement).toBeCloseTo((1 / 3 + 0) / 2, 12);
    // The first shown got 10, 5, 10, 7.5 against presentation means 7.5, 25/3, 8.75, 8.75.
    expect(bias.firstPositionAdvantage).toBeCloseTo((2.5 - 10 / 3 + 1.25 - 1.25) / 4, 12);
    expect(bias.presentations).toBe(4);
  });
});

describe("the document's protocol", () => {
  // reference/judges/ordering-judge.md: rank counts consistent with every figure of its example (70
  // questions): gpt3.5 1st 65, 2nd 3, 3rd 1, 4th 1; phoenix-7b 1st 32, 2nd 15, 3rd 20, 4th 3; the
  // reference better in 38, tie 28, phoenix better in 4. Rows (reference rank, phoenix rank, count).
  const rows: Array<[number, number, number]> = [
    [1, 1, 28],
    [1, 2, 15],
    [1, 3, 19],
    [1, 4, 3],
    [2, 1, 2],
    [2, 3, 1],
    [3, 1, 1],
    [4, 1, 1],
  ];
  const fill = (r: number, p: number) => {
    // Two more assistants take the remaining places (competition ranks stay consistent).
    const order = r === p ? [1, 1, 3, 4] : [r, p, ...[1, 2, 3, 4].filter((x) => x !== r && x !== p)];
    return order;
  };
  const reviews = rows.flatMap(([r, p, count]) => Array.from({ length: count }, () => ({ ranks: fill(r, p) })));

  it('reproduces the example figures with 10 / rank', () => {
    expect(reviews).toHaveLength(70);
    const { metric } = documentMetrics(reviews, ['gpt3.5', 'phoenix-7b', 'x', 'y'], true, 'reciprocal');
    const m = (metric as Record<string, any>)['phoenix-7b'];
    expect(m.winning).toEqual({ 'gpt3.5': 38, tie: 28, model: 4, '%model': 0.05714285714285714 });
    expect(m.order['gpt3.5']).toBeCloseTo(1.1142857142857143, 14);
    expect(m.order.model).toBeCloseTo(1.9142857142857144, 14);
    expect(m.score['gpt3.5']).toBeCloseTo(9.583333333333334, 14);
    expect(m.score.model).toBeCloseTo(6.702380952380952, 14);
    expect(m.score['%model']).toBeCloseTo(0.6993788819875776, 14);
  });

  it("gives the table's 9.714 and 7.714 with 10 / 7.5 / 5 / 2.5, and counts a refused review in every denominator", () => {
    const { metric } = documentMetrics(reviews, ['gpt3.5', 'phoenix-7b', 'x', 'y'], true, 'table');
    const m = (metric as Record<string, any>)['phoenix-7b'];
    expect(m.score['gpt3.5']).toBeCloseTo(12.5 - 2.5 * (78 / 70), 12);
    expect(m.score.model).toBeCloseTo(12.5 - 2.5 * (134 / 70), 12);
    const withRefusal = documentMetrics([...reviews, { ranks: undefined }], ['gpt3.5', 'phoenix-7b', 'x', 'y'], true, 'reciprocal');
    const w = (withRefusal.metric as Record<string, any>)['phoenix-7b'];
    expect(w.winning['%model']).toBeCloseTo(4 / 71, 14);
    expect(w.score.model).toBeCloseTo(469.1666666666667 / 71, 12);
  });
});

describe('agreement', () => {
  const N = NaN;
  const units = (m: number[][]) => m[0]!.map((_, u) => m.map((r) => r[u]!).filter((v) => !Number.isNaN(v)));
  // Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", §C: 4 observers, 12 units, missing values.
  const K2011 = units([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
  ]);
  // Wikipedia, "Krippendorff's alpha", A computational example: 3 coders, 15 units.
  const WIKI = units([
    [N, N, N, N, N, 3, 4, 1, 2, 1, 1, 3, 3, N, 3],
    [1, N, 2, 1, 3, 3, 4, 3, N, N, N, N, N, N, N],
    [N, N, 2, 1, 3, 4, 4, N, 2, 1, 1, 3, 3, N, 4],
  ]);

  it('reproduces the published worked examples of Krippendorff’s alpha', () => {
    expect(krippendorffAlpha(K2011, 'nominal').alpha!.toFixed(3)).toBe('0.743');
    expect(krippendorffAlpha(K2011, 'ordinal').alpha!.toFixed(3)).toBe('0.815');
    expect(krippendorffAlpha(K2011, 'interval').alpha!.toFixed(3)).toBe('0.849');
    expect(krippendorffAlpha(WIKI, 'nominal').alpha!.toFixed(3)).toBe('0.691');
    expect(krippendorffAlpha(WIKI, 'interval').alpha!.toFixed(3)).toBe('0.811');
    // Unit 12 was coded by one observer only: not pairable.
    expect(krippendorffAlpha(K2011, 'nominal').units).toBe(11);
  });

  it('computes the interval alpha in one pass exactly as from the coincidence matrix', () => {
    const random = (seed: number) => () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const next = random(42);
    for (let t = 0; t < 20; t += 1) {
      const units = Array.from({ length: 3 + Math.floor(next() * 30) }, () => Array.from({ length: Math.floor(next() * 5) }, () => Math.floor(next() * 7)));
      const full = krippendorffAlpha(units, 'interval').alpha;
      const fast = intervalAlpha(units);
      if (full === null) expect(fast).toBeNull();
      else expect(fast).toBeCloseTo(full, 12);
    }
  });

  it('is 1 for perfect agreement and undefined without variation or pairs', () => {
    expect(
      krippendorffAlpha(
        [
          [1, 1],
          [2, 2],
          [5, 5],
        ],
        'interval',
      ).alpha,
    ).toBe(1);
    expect(
      krippendorffAlpha(
        [
          [3, 3],
          [3, 3],
        ],
        'interval',
      ).alpha,
    ).toBeNull();
    expect(krippendorffAlpha([[3], [4]], 'interval').alpha).toBeNull();
  });

  it('matches scipy’s Pearson and Spearman (ties by mean rank)', () => {
    const fixture = JSON.parse(readFileSync(new URL('../../scoring/fixtures/scipy-correlation.json', import.meta.url), 'utf8')) as {
      cases: Array<{ name: string; x: number[]; y: number[]; pearson: number; spearman: number }>;
    };
    expect(fixture.cases.length).toBeGreaterThanOrEqual(5);
    for (const c of fixture.cases) {
      expect(pearson(c.x, c.y), c.name).toBeCloseTo(c.pearson, 12);
      expect(spearman(c.x, c.y), c.name).toBeCloseTo(c.spearman, 12);
    }
    expect(spearman([1, 1, 1], [1, 2, 3])).toBeNull();
  });
});
