import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BodyInfo, FIELD_COUNT, type FrameBatch } from '../../bridge/frames.js';
import {
  bestScore,
  combineTrials,
  DEFAULT_VELOCITY_RULE,
  needsAnotherTrial,
  OFFICIAL_MOVEMENT_THRESHOLD,
  type TrialStability,
  trialStability,
  unityScore,
} from '../../scoring/stability.js';
import { REFERENCE_LEVELS } from '../helpers/cli.js';

const body = (id: number, counted = true): BodyInfo => ({
  id,
  kind: counted ? 'block' : 'platform',
  type: 'SquareTiny',
  material: 'wood',
  counted,
  x: 0,
  y: 0,
  angle: 0,
});

/** A batch from per-step positions/velocities: `paths[b][s] = [x, y, vx, vy]`. */
function batch(paths: Array<Array<[number, number, number, number]>>, firstStep = 0): FrameBatch {
  const bodyCount = paths.length;
  const stepCount = paths[0]!.length;
  const states = new Float32Array(stepCount * bodyCount * FIELD_COUNT);
  const alive = new Uint8Array(stepCount * bodyCount).fill(1);
  for (let s = 0; s < stepCount; s++) {
    for (let b = 0; b < bodyCount; b++) {
      const [x, y, vx, vy] = paths[b]![s]!;
      states.set([x, y, 0, vx, vy, 0], (s * bodyCount + b) * FIELD_COUNT);
    }
  }
  return { firstStep, stepCount, bodyCount, states, alive };
}

const still = (steps: number, x = 0, y = 0): Array<[number, number, number, number]> => Array.from({ length: steps }, () => [x, y, 0, 0]);

interface GoldenEntry {
  tag: string;
  score: number;
  startingObjects: number;
  movingObjects: number;
}

function goldenEntries(): GoldenEntry[] {
  const root = REFERENCE_LEVELS;
  return readdirSync(root).flatMap((v) =>
    readdirSync(join(root, v, 'stability')).flatMap((f) => (JSON.parse(readFileSync(join(root, v, 'stability', f), 'utf8')) as { raws: GoldenEntry[] }).raws),
  );
}

describe('score arithmetic', () => {
  it('1 − moving/starting rounded once to float32 reproduces every consistent score of the evaluator', () => {
    const entries = goldenEntries();
    expect(entries).toHaveLength(90);
    // Where the best trial was also the last one, the stored score is the formula of the stored counts.
    const consistent = entries.filter((e) => Math.abs(e.score - (1 - e.movingObjects / e.startingObjects)) < 1e-6);
    expect(consistent.length).toBeGreaterThan(80);
    for (const e of consistent) expect(unityScore(e.startingObjects, e.movingObjects)).toBe(e.score);
    // e.g. V1_L_1: 4 of 6 moving → 0.3333333432674408 (not float32 1 − 0.6666667 = 0.33333331).
    expect(unityScore(6, 4)).toBe(0.3333333432674408);
    expect(unityScore(0, 0)).toBe(0);
  });
});

describe('official displacement rule', () => {
  const bodies = [body(0), body(1), body(2, false)];

  it('moving when the centre moved ≥ 0.1 between the start and the last read of the window; platforms not counted', () => {
    const steps = 11;
    const moveTo = (d: number): Array<[number, number, number, number]> => Array.from({ length: steps }, (_, s) => [s === steps - 1 ? d : 0, 0, 0, 0]);
    const result = trialStability(bodies, [batch([moveTo(OFFICIAL_MOVEMENT_THRESHOLD), moveTo(0.0999), moveTo(5)])], [], 10);
    expect(result).toEqual({ startingObjects: 2, movingObjects: 1, score: unityScore(2, 1), moving: [0] });
  });

  it('intermediate positions do not matter: a block that wobbles and returns is stable', () => {
    const wobble: Array<[number, number, number, number]> = Array.from({ length: 11 }, (_, s) => [s === 5 ? 1 : 0, 0, 0, 0]);
    expect(trialStability([body(0)], [batch([wobble])], [], 10).movingObjects).toBe(0);
  });

  it("reads on the evaluator's steps only: the start on step 1, last positions on 2 … 1+N and 3+N, nothing after", () => {
    // A 10-step window (0.2 s): `while (t <= 0.2f)` runs N = 11 times; reads on 2 … 12 and on 14 (bridge/window.ts).
    const path = (f: (s: number) => number): Array<[number, number, number, number]> => Array.from({ length: 20 }, (_, s) => [f(s), 0, 0, 0]);
    const moving = (f: (s: number) => number): number => trialStability([body(0)], [batch([path(f)])], [], 10).movingObjects;
    expect(moving((s) => (s >= 15 ? 3 : 0))).toBe(0); // after the end step
    expect(moving((s) => (s === 13 ? 3 : 0))).toBe(0); // step 13 is not read
    expect(moving((s) => (s === 14 ? 3 : 0))).toBe(1); // the last read
    // The start is step 1, not the creation pose of step 0.
    expect(moving((s) => (s === 0 ? -3 : 0))).toBe(0);
    expect(moving((s) => (s === 0 ? 0 : 0.08 + (s >= 2 ? 0.05 : 0)))).toBe(0); // 0.05 from step 1, 0.13 from step 0
  });

  it('a removed object keeps the last position seen before its removal, whatever the stream reports afterwards', () => {
    const path: Array<[number, number, number, number]> = Array.from({ length: 11 }, (_, s) => [0, s < 4 ? -0.02 * s : 7, 0, 0]);
    const result = trialStability([body(0)], [batch([path])], [{ kind: 'removed', step: 4, id: 0, reason: 'death' }], 10);
    expect(result.movingObjects).toBe(0); // last seen at step 3: moved 0.06
    expect(trialStability([body(0)], [batch([path])], [], 10).movingObjects).toBe(1);
  });

  it('batches may arrive in pieces', () => {
    const path: Array<[number, number, number, number]> = Array.from({ length: 11 }, (_, s) => [0.02 * s, 0, 0, 0]);
    const whole = trialStability([body(0)], [batch([path])], [], 10);
    const pieces = trialStability([body(0)], [batch([path.slice(0, 4)]), batch([path.slice(4)], 4)], [], 10);
    expect(pieces).toEqual(whole);
    expect(whole.movingObjects).toBe(1);
  });
});

describe('velocity rule (option)', () => {
  it('moving when the speed exceeds the threshold in any frame from fromStep on, even if the block returns', () => {
    const rule = { kind: 'velocity' as const, threshold: 1, fromStep: 2 };
    const burst: Array<[number, number, number, number]> = Array.from({ length: 11 }, (_, s) => [0, 0, s === 5 ? 1.5 : 0, 0]);
    const early: Array<[number, number, number, number]> = Array.from({ length: 11 }, (_, s) => [0, 0, s === 1 ? 9 : 0, 0]);
    const slow: Array<[number, number, number, number]> = Array.from({ length: 11 }, () => [0, 0, 0.6, 0.7]);
    const result = trialStability([body(0), body(1), body(2)], [batch([burst, early, slow])], [], 10, rule);
    expect(result.moving).toEqual([0]);
    // The official rule sees none of them move.
    expect(trialStability([body(0), body(1), body(2)], [batch([burst, early, slow])], [], 10).movingObjects).toBe(0);
    expect(DEFAULT_VELOCITY_RULE).toMatchObject({ kind: 'velocity' });
  });

  it('a removed object counts as moving', () => {
    const result = trialStability([body(0)], [batch([still(11)])], [{ kind: 'removed', step: 5, id: 0, reason: 'out-of-world' }], 10, DEFAULT_VELOCITY_RULE);
    expect(result.movingObjects).toBe(1);
  });
});

describe("Unity's trial bookkeeping (up to 3, stop at 1.0, score = max, counts from the last trial)", () => {
  const t = (starting: number, moving: number): TrialStability => ({
    startingObjects: starting,
    movingObjects: moving,
    score: unityScore(starting, moving),
    moving: [],
  });

  it('runs another trial only while fewer than the maximum ran and none scored 1.0', () => {
    expect(needsAnotherTrial([], 3)).toBe(true);
    expect(needsAnotherTrial([t(4, 1)], 3)).toBe(true);
    expect(needsAnotherTrial([t(4, 1), t(4, 0)], 3)).toBe(false);
    expect(needsAnotherTrial([t(4, 1), t(4, 1), t(4, 1)], 3)).toBe(false);
    expect(needsAnotherTrial([t(4, 1)], 1)).toBe(false);
  });

  it('score is the best trial, counts come from the last one (as V3_L_3: 0.5 with 4 of 4 moving)', () => {
    const entry = goldenEntries().find((e) => e.tag.endsWith('V3_L_3.xml'))!;
    expect(entry).toMatchObject({ score: 0.5, startingObjects: 4, movingObjects: 4 });
    const combined = combineTrials([t(4, 2), t(4, 3), t(4, 4)]);
    expect(combined).toEqual({ score: entry.score, startingObjects: 4, movingObjects: 4, trialsRun: 3 });
    expect(bestScore([t(6, 4), t(6, 5)])).toBe(0.3333333432674408);
    expect(() => combineTrials([])).toThrow();
  });
});
