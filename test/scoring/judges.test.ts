import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDropProgram } from '../../levels/program.js';
import { dropBlocks } from '../../levels/drop.js';
import {
  buildOrderPrompt,
  buildRubricPrompt,
  chainRanks,
  checkRubric,
  combineQuestion,
  competitionRanks,
  coveringGroups,
  gridView,
  krippendorffAlpha,
  metricJson,
  orderingText,
  parseOrder,
  parseRubricAnswer,
  pearson,
  positionBias,
  presentations,
  rankScore,
  reachableScores,
  rubricForLetter,
  spearman,
  stripThinking,
  teamSummaries,
  tierScore,
  type Question,
  type Rubric,
} from '../../scoring/judges/index.js';

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
    expect([1, 2, 3, 4].map(rankScore)).toEqual([10, 7.5, 5, 2.5]);
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

  it('shows each group in a seeded order and its reverse', () => {
    const [a, b] = presentations(['A', 'B', 'C', 'D'], 5);
    expect([...a].sort()).toEqual(['A', 'B', 'C', 'D']);
    expect(b).toEqual([...a].reverse());
    expect(presentations(['A', 'B', 'C', 'D'], 5)).toEqual([a, b]);
  });
});

describe('ordering metrics', () => {
  // Two questions, three teams; the reference is R.
  const questions: Question[] = [
    {
      id: 1, letter: 'L', trial: 1, teams: ['A', 'B', 'R'],
      presentations: [
        { order: ['R', 'A', 'B'], ranks: [1, 2, 3] }, // R > A > B
        { order: ['B', 'A', 'R'], ranks: [3, 1, 1] }, // A = R > B
      ],
    },
    {
      id: 2, letter: 'L', trial: 2, teams: ['A', 'B', 'R'],
      presentations: [
        { order: ['A', 'R'], ranks: [1, 2] }, // B has no level: ranked 3
        { order: ['R', 'A'], ranks: [2, 1] }, // the same ordering, seen the other way round
      ],
    },
  ];
  const results = questions.map(combineQuestion);

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

  it('is 1 for perfect agreement and undefined without variation or pairs', () => {
    expect(krippendorffAlpha([[1, 1], [2, 2], [5, 5]], 'interval').alpha).toBe(1);
    expect(krippendorffAlpha([[3, 3], [3, 3]], 'interval').alpha).toBeNull();
    expect(krippendorffAlpha([[3], [4]], 'interval').alpha).toBeNull();
  });

  it('matches scipy’s Pearson and Spearman (ties by mean rank)', () => {
    const fixture = JSON.parse(readFileSync(new URL('./fixtures/scipy-correlation.json', import.meta.url), 'utf8')) as { cases: Array<{ name: string; x: number[]; y: number[]; pearson: number; spearman: number }> };
    expect(fixture.cases.length).toBeGreaterThanOrEqual(5);
    for (const c of fixture.cases) {
      expect(pearson(c.x, c.y), c.name).toBeCloseTo(c.pearson, 12);
      expect(spearman(c.x, c.y), c.name).toBeCloseTo(c.spearman, 12);
    }
    expect(spearman([1, 1, 1], [1, 2, 3])).toBeNull();
  });
});
