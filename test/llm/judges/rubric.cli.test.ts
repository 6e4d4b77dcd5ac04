import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleSources, runSbeval } from '../../helpers/cli.js';
import { type FakeCall, FakeOllama } from '../../helpers/fake-ollama.js';
import { filesUnder, readJournal, spawnSbeval, until, userText } from './helpers.js';

/**
 * `sbeval judge rubric` through the real CLI on the example competition (after `sbeval run`), with a
 * fake vision judge over real HTTP whose behaviour per level is a function of what it is shown (the
 * letter and the image; two teams may well have drawn the same level):
 * well-formed answers, rambling ones, answers without tags on the first try, scores out of range
 * every time, and scores that contradict the judge's own item verdicts. The expected file of every
 * letter is computed here, independently, with the tier rules written out again below.
 */
const JUDGE = 'llava:13b';
const LETTERS = ['I', 'L', 'O', 'T', 'U'];
const TEAMS = ['BlockSmith', 'GridThinkers', 'PromptPilots'];

// A rubric with a 3-item 50 level (so 3 × 50 must be capped at 100), a 4-item 25 level, and letter I
// with an empty 100 level (skipped).
const RUBRIC_YAML = `question: Does this level look like "{letter}"?
levels:
  100: ["perfect {letter}"]
  50: [s1, s2, s3]
  25: [f1, f2, f3, f4]
letters:
  I:
    levels:
      100: []
      50: [s1, s2]
      25: [f1]
`;
const SIZES = (letter: string) => (letter === 'I' ? { 100: 0, 50: 2, 25: 1 } : { 100: 1, 50: 3, 25: 4 });

type Kind = 'good' | 'ramble' | 'untagged-first' | 'out-of-range' | 'inconsistent';
const KINDS: Kind[] = ['good', 'ramble', 'untagged-first', 'out-of-range', 'inconsistent'];

/** What the judge sees of a level: its letter and image. */
function contentId(letter: string, imageBase64: string): string {
  return createHash('sha256').update(`${letter}:${imageBase64}`).digest('hex');
}

/** Level name → what the judge sees of it. */
const contentOf = new Map<string, string>();

function digest(name: string): Buffer {
  return createHash('sha256')
    .update(`judge:${contentOf.get(name) ?? name}`)
    .digest();
}

/**
 * Letter U's judge never gives a usable score (out of range after every retry), so some letter files
 * have no scored trial at all (meanScore null) whatever the images hash to; the other letters' kinds
 * are a function of the image bytes (so they change when the PNG encoding does: the assertions below
 * hold for every draw).
 */
function kindOf(name: string): Kind {
  if (/_U_\d+$/.test(name)) return 'out-of-range';
  return KINDS[digest(name)[0]! % KINDS.length]!;
}

function verdictsOf(name: string, letter: string): { 100: boolean[]; 50: boolean[]; 25: boolean[] } {
  const d = digest(name);
  const s = SIZES(letter);
  // Three profiles so that every branch of the procedure occurs: mixed, every 50-item met (3 × 50
  // must cap at 100), no 50-item met (the 25 level decides).
  const profile = d[12]! % 3;
  return {
    100: Array.from({ length: s[100] }, (_, i) => profile === 0 && d[1 + i]! % 2 === 0),
    50: Array.from({ length: s[50] }, (_, i) => profile === 1 || (profile === 0 && d[3 + i]! % 2 === 0)),
    25: Array.from({ length: s[25] }, (_, i) => d[8 + i]! % 2 === 0),
  };
}

/** The tier rules, written out independently of llm/judges/scoring/rubric.ts. */
function expectedScore(v: { 100: boolean[]; 50: boolean[]; 25: boolean[] }): number {
  if (v[100].includes(true)) return 100;
  const n50 = v[50].filter((x) => x).length;
  if (n50 >= 1) return Math.min(n50 * 50, 100);
  return v[25].filter((x) => x).length * 25;
}

function verdictLines(v: { 100: boolean[]; 50: boolean[]; 25: boolean[] }): string {
  const lines: string[] = [];
  for (const tier of [100, 50, 25] as const) {
    if (v[tier].length === 0) lines.push(`[${tier}] skipped (no items)`);
    v[tier].forEach((met, i) => lines.push(`[${tier}.${i + 1}] ${met ? 'met' : 'not met'} — looked at the image`));
  }
  return lines.join('\n');
}

/** What the judge sees → one level name with that content. */
const nameOfContent = new Map<string, string>();

function seen(call: FakeCall): string {
  const user = call.messages.find((m) => m.role === 'user')!;
  const letter = /look like "([A-Z])"/.exec(user.content)?.[1] ?? '?';
  return contentId(letter, user.images?.[0] ?? '');
}

function judgeAnswer(call: FakeCall): string {
  const user = call.messages.find((m) => m.role === 'user')!;
  const name = nameOfContent.get(seen(call)) ?? 'unknown';
  const letter = /look like "([A-Z])"/.exec(user.content)?.[1] ?? '?';
  const v = verdictsOf(name, letter);
  const score = expectedScore(v);
  const seed = Number(call.options.seed);
  const well = (stated: number) => `<analysis>\n${verdictLines(v)}\n</analysis>\n<score>\n${stated}\n</score>`;
  switch (kindOf(name)) {
    case 'good':
      return well(score);
    case 'ramble':
      return `Let me think about this level carefully. The blocks are black on white.\n${'It has several parts. '.repeat(20)}\n${well(score)}\nI hope this evaluation helps!`;
    case 'untagged-first':
      return seed === 6280 ? `The level deserves ${score} points.` : well(score);
    case 'out-of-range':
      return `<analysis>\n${verdictLines(v)}\n</analysis>\n<score>150</score>`;
    case 'inconsistent':
      return well(score === 100 ? 0 : 100);
  }
}

function attemptsExpected(name: string): number {
  const kind = kindOf(name);
  return kind === 'untagged-first' ? 2 : kind === 'out-of-range' ? 3 : 1;
}

let base: string;
let host: FakeOllama;
const levelsWithImage: Array<{ team: string; letter: string; name: string }> = [];

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sbeval-judge-rubric-'));
  const root = join(base, 'setup');
  copyExampleSources(root);
  const run = await runSbeval(['run', root]);
  expect(run.exitCode, run.stderr).toBe(0);
  for (const team of TEAMS) {
    for (const letter of LETTERS) {
      for (const file of filesUnder(join(root, team, 'images', letter))) {
        if (!file.endsWith('.png') || file.endsWith('_raw.png')) continue;
        const name = file.replace(/\.png$/, '');
        const id = contentId(letter, readFileSync(join(root, team, 'images', letter, file)).toString('base64'));
        contentOf.set(name, id);
        if (!nameOfContent.has(id)) nameOfContent.set(id, name);
        levelsWithImage.push({ team, letter, name });
      }
    }
  }
  writeFileSync(join(base, 'rubric.yaml'), RUBRIC_YAML);
  host = await new FakeOllama({ models: [JUDGE], answer: judgeAnswer }).start();
}, 300_000);

afterAll(async () => {
  await host?.stop();
  if (base) rmSync(base, { recursive: true, force: true });
});

function args(root: string, extra: string[] = []): string[] {
  return ['judge', 'rubric', root, '--judge', JUDGE, '--hosts', host.url, '--rubric', join(base, 'rubric.yaml'), '--concurrency', '2', ...extra];
}

/** The judge's folder: the model name as a folder name. */
const ID = 'llava_13b';
const letterFile = (root: string, team: string, letter: string) => join(root, team, 'judge-rubric', ID, `${letter}.json`);

/** A call as (what was shown, seed): levels with the same content make the same calls. */
const callKey = (call: FakeCall) => `${seen(call)}#${String(call.options.seed)}`;

function counts(keys: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
}

/** Multiset difference a − b. */
function minus(a: readonly string[], b: readonly string[]): Map<string, number> {
  const m = counts(a);
  for (const k of b) m.set(k, (m.get(k) ?? 0) - 1);
  for (const [k, v] of m) if (v === 0) m.delete(k);
  return m;
}

describe('sbeval judge rubric', () => {
  it('has levels of every behaviour to judge', () => {
    expect(levelsWithImage.length).toBe(37);
    expect(new Set(levelsWithImage.map((l) => kindOf(l.name)))).toEqual(new Set(KINDS));
  });

  it('killed with SIGKILL and run again: no answer asked twice, and the same files as an uninterrupted run, matching the expectations', async () => {
    const killedRoot = join(base, 'killed');
    const fullRoot = join(base, 'full');
    cpSync(join(base, 'setup'), killedRoot, { recursive: true });
    cpSync(join(base, 'setup'), fullRoot, { recursive: true });

    // The fake judge stops answering after 15 answers: the run is surely midway when it is killed,
    // however slow the machine.
    host.holdAfter(15);
    const child = spawnSbeval(args(killedRoot));
    await until(() => host.holding(), '15 answers', child);
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    host.release();
    // Requests the killed run sent just before dying are its calls, not the resumed run's.
    await until(() => host.idle(), "the killed run's connections to close");
    const journal = readJournal(join(killedRoot, '.sbeval', 'judges', ID, 'rubric.jsonl'));
    expect(journal.length).toBeGreaterThanOrEqual(10);
    // Every call's cost is kept: tokens, time, host, the model's digest (the fake's /api/tags says "fake").
    for (const j of journal)
      expect(j).toMatchObject({
        promptTokens: expect.any(Number),
        completionTokens: expect.any(Number),
        durationMs: expect.any(Number),
        host: host.url,
        digest: 'fake',
        bytes: expect.any(Number),
      });
    const journaled = journal.map((j) => `${contentOf.get(j.key.split('/')[2]!)}#${j.seed}`);
    const firstRun = host.calls.length;

    // More than 20 % of the answers are refused (letter U's judge never answers usably): exit 1 with
    // the reason, every file written all the same.
    const resumed = await runSbeval(args(killedRoot));
    expect(resumed.exitCode, resumed.stderr).toBe(1);
    expect(resumed.stderr).toMatch(/refused after the retries \(\d+\.\d %, more than --max-refusal-rate 0\.2\)/);
    const second = host.calls.slice(firstRun).map(callKey);
    // Every attempt not journaled is asked exactly once more; nothing journaled is asked again.
    const all = levelsWithImage.flatMap((l) => Array.from({ length: attemptsExpected(l.name) }, (_, k) => `${contentOf.get(l.name)}#${6280 + k}`));
    expect(counts(second)).toEqual(minus(all, journaled));

    const full = await runSbeval(args(fullRoot, ['--max-refusal-rate', '0.5']));
    expect(full.exitCode, full.stderr).toBe(0);
    const outputs = (root: string) => TEAMS.flatMap((t) => filesUnder(join(root, t, 'judge-rubric')).map((f) => `${t}/judge-rubric/${f}`));
    expect(outputs(killedRoot)).toEqual(outputs(fullRoot));
    expect(outputs(fullRoot)).toHaveLength(15);
    for (const file of outputs(fullRoot)) expect(readFileSync(join(killedRoot, file), 'utf8'), file).toBe(readFileSync(join(fullRoot, file), 'utf8'));

    // Every trial as expected.
    let lettersWithoutScore = 0;
    for (const team of TEAMS) {
      for (const letter of LETTERS) {
        const doc = JSON.parse(readFileSync(letterFile(fullRoot, team, letter), 'utf8'));
        expect(doc.settings).toMatchObject({
          api: 'ollama',
          model: JUDGE,
          view: 'image',
          protocol: 'sbeval',
          lowTier: 25,
          temperature: 0,
          seed: 6280,
          digests: ['fake'],
        });
        expect(doc.complete).toBe(true);
        expect(doc.trials.map((t: { trial: number }) => t.trial)).toEqual([1, 2, 3]);
        for (const t of doc.trials) {
          const withImage = levelsWithImage.find((l) => l.name === t.name);
          if (!withImage) {
            expect(t).toMatchObject({ status: 'missing', score: 0, input: null });
            expect(t.reason).toMatch(/no level|no image/);
            continue;
          }
          const kind = kindOf(t.name);
          const v = verdictsOf(t.name, letter);
          expect(t.attempts, t.name).toBe(attemptsExpected(t.name));
          expect(t.input).toBe(
            createHash('sha256')
              .update(readFileSync(join(fullRoot, team, 'images', letter, `${t.name}.png`)))
              .digest('hex'),
          );
          expect(t.calls).toHaveLength(attemptsExpected(t.name));
          for (const c of t.calls)
            expect(c).toEqual({ seed: expect.any(Number), promptTokens: expect.any(Number), completionTokens: expect.any(Number), digest: 'fake' });
          const prompt = JSON.parse(readFileSync(join(fullRoot, 'result', 'judge-prompts', `${t.prompt}.json`), 'utf8'));
          expect(prompt.user).toContain(letter === 'I' ? '[50.2] s2' : '[50.3] s3');
          expect(prompt.images).toEqual([{ sha256: t.input, bytes: expect.any(Number) }]);
          if (kind === 'out-of-range') {
            // Refused after the retries: counts 0, the worst score (the failure rule).
            expect(t).toMatchObject({ status: 'refused', score: 0, seed: 6282 });
            expect(t.reason).toMatch(/outside 0–100/);
            expect(t.raw).toContain('<score>150</score>');
            expect(t.failures).toHaveLength(3);
            continue;
          }
          expect(t).toMatchObject({ status: 'judged', model: JUDGE, seed: kind === 'untagged-first' ? 6281 : 6280, verdicts: v, itemsScore: expectedScore(v) });
          expect(t.analysis).toContain(letter === 'I' ? '[100] skipped' : '[100.1]');
          if (kind === 'inconsistent') expect(t).toMatchObject({ score: expectedScore(v) === 100 ? 0 : 100, consistent: false });
          else expect(t).toMatchObject({ score: expectedScore(v), consistent: true });
          if (kind === 'untagged-first')
            expect(t.failures[0]).toMatchObject({ seed: 6280, reason: expect.stringMatching(/no <score>/), raw: expect.stringContaining('points') });
        }
        // Every trial without a level counts 0, every judged one has a score unless its judge never
        // answered usably: a resume that lost or mixed up answers changes these counts.
        const shown = doc.trials.filter((t: { name: string }) => levelsWithImage.some((l) => l.name === t.name));
        const refused = shown.filter((t: { name: string }) => kindOf(t.name) === 'out-of-range').length;
        expect(doc.summary, `${team} ${letter}`).toMatchObject({ trials: 3, missing: 3 - shown.length, judged: shown.length - refused, refused });
        // Every trial is in the mean: refused and missing count 0.
        const scores = doc.trials.map((t: { score: number }) => t.score);
        expect(doc.summary.meanScore).toBeCloseTo(scores.reduce((a: number, b: number) => a + b, 0) / 3, 12);
        if (doc.trials.every((t: { status: string }) => t.status === 'refused')) lettersWithoutScore += 1;
      }
    }
    // BlockSmith and GridThinkers have all three U levels (PromptPilots has one, and two trials that count 0).
    expect(lettersWithoutScore, 'letter files whose every trial was refused').toBe(2);
    // The cap: some letter other than I had all three 50-items met and no 100.
    const capped = levelsWithImage.filter(
      (l) =>
        l.letter !== 'I' &&
        kindOf(l.name) !== 'out-of-range' &&
        (() => {
          const v = verdictsOf(l.name, l.letter);
          return !v[100][0] && v[50].every(Boolean);
        })(),
    );
    expect(capped.length, 'levels capped at 100 by the 50 level').toBeGreaterThan(0);
    // …and some level was scored by the 25 level with more than one item met.
    const by25 = levelsWithImage.filter((l) => {
      const v = verdictsOf(l.name, l.letter);
      return (
        ['good', 'ramble', 'untagged-first'].includes(kindOf(l.name)) && !v[100].some(Boolean) && !v[50].some(Boolean) && v[25].filter(Boolean).length >= 2
      );
    });
    expect(by25.length, 'levels scored n × 25 with n ≥ 2').toBeGreaterThan(0);

    // The request: a vision message with the level's PNG, the rubric, temperature 0 and the seed.
    const call = host.calls.at(-1)!;
    expect(call.options).toMatchObject({ temperature: 0, num_predict: 2048 });
    expect(userText(call)).toContain('[50.3] s3');
    expect(call.messages[0]!.role).toBe('system');
  }, 480_000);

  it('does nothing on a finished folder and refuses to mix settings of one judge without --force or --label', async () => {
    const root = join(base, 'full');
    const before = host.calls.length;
    const again = await runSbeval(args(root, ['--max-refusal-rate', '0.5']));
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/; 0 calls, 37 already done/);
    expect(host.calls.length).toBe(before);
    const other = await runSbeval(args(root, ['--view', 'grid']));
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toMatch(/judged by "llava_13b" with other settings .*--label <name>.*--force/s);
    expect(host.calls.length).toBe(before);
  }, 240_000);

  it('asks again about exactly the level whose image changed, and about nothing else', async () => {
    const root = join(base, 'changed');
    cpSync(join(base, 'full'), root, { recursive: true });
    // A new response, XML and image for one level: here another level's image of the same letter.
    const target = levelsWithImage.find((l) => kindOf(l.name) === 'good' && l.letter !== 'I')!;
    const donor = levelsWithImage.find((l) => l.letter === target.letter && contentOf.get(l.name) !== contentOf.get(target.name) && kindOf(l.name) === 'good')!;
    cpSync(join(root, donor.team, 'images', donor.letter, `${donor.name}.png`), join(root, target.team, 'images', target.letter, `${target.name}.png`));
    const before = host.calls.length;
    const rerun = await runSbeval(args(root, ['--max-refusal-rate', '0.5']));
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    const calls = host.calls.slice(before);
    expect(calls.map(seen)).toEqual([contentOf.get(donor.name)]);
    const doc = JSON.parse(readFileSync(letterFile(root, target.team, target.letter), 'utf8'));
    const trial = doc.trials.find((t: { name: string }) => t.name === target.name);
    expect(trial).toMatchObject({ status: 'judged', score: expectedScore(verdictsOf(donor.name, target.letter)) });
    expect(trial.input).toBe(
      createHash('sha256')
        .update(readFileSync(join(root, donor.team, 'images', donor.letter, `${donor.name}.png`)))
        .digest('hex'),
    );
    // Run again: nothing left to ask.
    const after = host.calls.length;
    expect((await runSbeval(args(root, ['--max-refusal-rate', '0.5']))).exitCode).toBe(0);
    expect(host.calls.length).toBe(after);
  }, 240_000);
});
