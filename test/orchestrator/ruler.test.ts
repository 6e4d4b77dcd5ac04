import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopIterations, OFFICIAL_WINDOW } from '../../bridge/window.js';
import { loadRuler, type Ruler, readEvaluatorResults, rulerTracks, rulerVerdict, stepsPerFrameForSpan } from '../../orchestrator/stages/ruler.js';
import { inferWindow, type RulerTrack, windowCounts } from '../../scoring/ruler.js';
import { runSbeval } from '../helpers/cli.js';
import { writeEvaluatorRulerResults } from '../helpers/evaluator-ruler.js';

/**
 * The timing ruler (`sbeval unity calibrate --evaluator`): the stability JSON the official evaluator
 * would write for the shipped ruler levels under a given window — computed by this test's own model
 * of the evaluator's reads (test/helpers/evaluator-ruler.ts) from the headless engine's trials —
 * must give back exactly that window, and the command must exit 1 with the change to make unless it
 * is bridge/window.ts's.
 */
let dir: string;
let ruler: Ruler;
let tracks: RulerTrack[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sbeval-ruler-'));
  ruler = loadRuler();
  tracks = rulerTracks(ruler);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function evaluatorFolder(name: string, window: { start: number; end: number; stepsPerFrame: number }): string {
  const folder = join(dir, name);
  writeEvaluatorRulerResults(folder, window);
  return folder;
}

describe('sbeval unity calibrate --evaluator', () => {
  it("reads the evaluator's window (1, 503) — bridge/window.ts's — and exits 0", async () => {
    expect([OFFICIAL_WINDOW.startStep, OFFICIAL_WINDOW.endStep]).toEqual([1, 503]);
    const result = await runSbeval(['unity', 'calibrate', '--evaluator', evaluatorFolder('w1', { start: 1, end: 503, stepsPerFrame: 1 })]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\| start positions read on step \| 1 \| 1 \|/);
    expect(result.stdout).toMatch(/\| last positions read on step \| 503 \| 503 \|/);
    expect(result.stdout).toMatch(/\| physics steps per frame \(from the span\) \| 1 \| 1 \|/);
    expect(result.stdout).toMatch(/ruler: the evaluator's window is bridge\/window\.ts's/);
  });

  it('infers (2, 504) and (8, 510) exactly, exits 1 and names the change to make', async () => {
    const two = await runSbeval(['unity', 'calibrate', '--evaluator', evaluatorFolder('w2', { start: 2, end: 504, stepsPerFrame: 1 }), '--json']);
    expect(two.exitCode, two.stderr).toBe(1);
    const report = JSON.parse(two.stdout) as {
      ok: boolean;
      ruler: { start: number[]; end: number[]; stepsPerFrame: number[]; windows: unknown[]; change: string };
    };
    expect(report.ok).toBe(false);
    expect(report.ruler).toMatchObject({ start: [2, 2], end: [504, 504], stepsPerFrame: [1] });
    expect(report.ruler.windows).toEqual([{ start: 2, end: 504 }]);
    expect(report.ruler.change).toMatch(
      /^bridge\/window\.ts: LOAD_SETTLE_STEPS = 2 \(was 1\); unity-plugin\/Runtime\/EvaluatorWindow\.cs: LoadSettleSteps = 2 \(was 1\)/,
    );

    const eight = await runSbeval(['unity', 'calibrate', '--evaluator', evaluatorFolder('w8', { start: 8, end: 510, stepsPerFrame: 1 })]);
    expect(eight.exitCode, eight.stderr).toBe(1);
    expect(eight.stdout).toMatch(/\| start positions read on step \| 8 \| 1 \|/);
    expect(eight.stdout).toMatch(/\| last positions read on step \| 510 \| 503 \|/);
    expect(eight.stdout).toMatch(/ruler: MISMATCH — change bridge\/window\.ts: LOAD_SETTLE_STEPS = 8 \(was 1\)/);
  });

  it('says what is missing instead of guessing: a ruler level without a result, or results of something else', async () => {
    const partial = evaluatorFolder('partial', { start: 1, end: 503, stepsPerFrame: 1 });
    rmSync(join(partial, 'stability', 'start.json'));
    const missing = await runSbeval(['unity', 'calibrate', '--evaluator', partial]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stdout).toMatch(/do not mention 1 ruler level\(s\): start_01/);

    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const none = await runSbeval(['unity', 'calibrate', '--evaluator', empty]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/no stability JSON in/);
    const nothing = await runSbeval(['unity', 'calibrate']);
    expect(nothing.exitCode).toBe(2);
    expect(nothing.stderr).toMatch(/nothing to calibrate/);
  });
});

describe('the ruler as an instrument', () => {
  it('tells 1, 2 and 8 physics steps per frame apart (start after one frame, end after the loop)', () => {
    // `while (t <= 10) t += Time.deltaTime` in float32 runs 500, 251 and 63 times for 0.02, 0.04 and 0.16 s frames.
    const loops: Record<number, number> = { 1: 500, 2: 251, 8: 63 };
    for (const k of [1, 2, 8]) {
      const span = k * ((loops[k] as number) + 2);
      const folder = evaluatorFolder(`k${k}`, { start: k, end: k + span, stepsPerFrame: k });
      const v = rulerVerdict(ruler, tracks, readEvaluatorResults(folder));
      expect(v.inference.windows).toEqual([{ start: k, end: k + span }]);
      expect(v.stepsPerFrame).toEqual([k]);
      expect(v.ok).toBe(k === 1);
      if (k > 1)
        expect(v.change).toMatch(
          new RegExp(`the evaluator ran ${k} physics steps per frame, reading start positions on step ${k} and last positions on step ${k + span}`),
        );
    }
    // The spans of 1 … 10 steps per frame are all different, so a span names its steps per frame.
    const ks = Array.from({ length: 10 }, (_, i) => i + 1);
    const spans = ks.map((k) => k * (loopIterations(10, 0.02 * k) + 2));
    expect(new Set(spans).size).toBe(10);
    expect(spans.map((span) => stepsPerFrameForSpan(span))).toEqual(ks.map((k) => [k]));
  });

  it('has a resolution of one step: every (start, end) of its range gives its own counts', () => {
    const seen = new Map<string, string>();
    let windows = 0;
    for (let start = ruler.range.start[0]; start <= ruler.range.start[1]; start++) {
      for (let end = ruler.range.end[0]; end <= ruler.range.end[1]; end++) {
        const key = tracks.map((t) => windowCounts(t, start, end).movingObjects).join(',');
        expect(seen.get(key), `(${start}, ${end}) has the counts of ${seen.get(key)}`).toBeUndefined();
        seen.set(key, `(${start}, ${end})`);
        windows += 1;
      }
    }
    expect(ruler.range).toEqual({ start: [0, 20], end: [500, 552] });
    expect(windows).toBe(21 * 53);
  });

  it('finds no window when the counts contradict each other, and shows the closest', () => {
    const observed = tracks.map((t) => ({ level: t.level, ...windowCounts(t, 1, 503) }));
    // end_05's probe of step 505 read moving, but end_04's of step 504 not: no end step fits both.
    observed.find((o) => o.level === 'end_05')!.movingObjects += 1;
    const inference = inferWindow(tracks, [...observed], ruler.range);
    expect(inference.windows).toEqual([]);
    expect(inference.closest?.disagreeing.length).toBe(1);
  });

  it('refuses results of an evaluator without the counts (the older "remaining objects" metric)', () => {
    const folder = join(dir, 'old');
    mkdirSync(join(folder, 'stability'), { recursive: true });
    writeFileSync(
      join(folder, 'stability', 'start.json'),
      JSON.stringify({ dataCount: 1, rate: 1, raws: [{ tag: 'competition\\x\\levels\\start\\start_01.xml', score: 1 }] }),
    );
    expect(() => readEvaluatorResults(folder)).toThrow(/has no startingObjects\/movingObjects/);
  });
});

describe('sbeval unity ruler <dir>', () => {
  it("writes the ruler levels in the layout the evaluator's Batch Stability Test walks", async () => {
    const out = join(dir, 'competition', 'sbeval-ruler');
    const result = await runSbeval(['unity', 'ruler', out]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(readdirSync(join(out, 'levels')).sort()).toEqual(['end', 'start']);
    expect(readdirSync(join(out, 'levels', 'end'))).toHaveLength(11);
    expect(existsSync(join(out, 'levels', 'start', 'start_01.xml'))).toBe(true);
    expect(readFileSync(join(out, 'levels', 'start', 'start_01.xml'), 'utf8')).toBe(ruler.levels[0]!.xml);
    expect(result.stdout).toMatch(/sbeval unity calibrate --evaluator/);
  });
});
