import { describe, expect, it } from 'vitest';
import type { SimEvent } from '../../bridge/frames.js';
import { formatExplanation } from '../../scoring/explain/format.js';
import { mergeBatches } from '../../scoring/explain/series.js';
import { analyseSupport, GROUND, GROUND_TOP_Y } from '../../scoring/explain/support.js';
import { explainFrames } from '../../scoring/explain.js';
import { bodyInfos, movesFrom, type Pose, type SynthBody, still, synthFrames } from './synthetic.js';

// Collider sizes from the evaluator's prefabs (reference/science-birds-evaluator.md §1.3).
const RECT_W = 0.7;
const RECT_H = 0.22;
const SQ_W = 0.22;
const SQ_H = 0.21;
const GAP = 0.01;
const HALF_PI = Math.PI / 2;

/** A vertical RectSmall standing on the ground at x. */
const pillarAt = (x: number): Pose => [x, GROUND_TOP_Y + GAP + RECT_W / 2, HALF_PI];
const pillarTop = GROUND_TOP_Y + GAP + RECT_W;
/** A horizontal RectSmall resting on a surface at height `top`. */
const plankOn = (x: number, top: number): Pose => [x, top + GAP + RECT_H / 2, 0];
const squareOnGround = (x: number): Pose => [x, GROUND_TOP_Y + GAP + SQ_H / 2, 0];

function placed(bodies: SynthBody[]) {
  return bodyInfos(bodies).map((info, i) => {
    const [x, y, angle] = bodies[i]!.pose(0);
    return { info, x, y, angle, alive: true };
  });
}

/** Displacement from the start position, read on the window's start step (step 1, bridge/window.ts). */
const displacementAt = (b: SynthBody, step: number): number => {
  const [x0, y0] = b.pose(1);
  const [x, y] = b.pose(step);
  return Math.hypot(x - x0, y - y0);
};

describe('static support analysis', () => {
  it('flags a plank whose centre lies past the top of its pillar', () => {
    const bodies: SynthBody[] = [
      { type: 'RectSmall', pose: still(pillarAt(2)) },
      { type: 'RectSmall', pose: still(plankOn(2.3, pillarTop)) },
    ];
    const [pillar, plank] = analyseSupport(placed(bodies));
    expect(pillar!.contacts.map((c) => c.by)).toEqual([GROUND]);
    expect(pillar!.issue).toBeUndefined();
    expect(plank!.contacts.map((c) => c.by)).toEqual([0]);
    expect(plank!.depth).toBe(1);
    expect(plank!.issue).toMatchObject({ kind: 'overhang', side: 'right', edgeOf: 0, loadBodies: [1] });
    // The pillar's top edge is at x = 2 + 0.22/2; the plank's centre is 0.3 right of the pillar's axis.
    if (plank!.issue?.kind !== 'overhang') throw new Error('expected an overhang');
    expect(plank!.issue.edgeX).toBeCloseTo(2 + SQ_W / 2, 5);
    expect(plank!.issue.beyond).toBeCloseTo(0.3 - RECT_H / 2, 5);
  });

  it('flags the lower plank of a stack whose combined load tips, not the upper one that is fine alone', () => {
    const top1 = pillarTop + GAP + RECT_H;
    const bodies: SynthBody[] = [
      { type: 'RectSmall', pose: still(pillarAt(2)) },
      { type: 'RectSmall', pose: still(plankOn(2, pillarTop)) },
      { type: 'RectSmall', pose: still(plankOn(2.33, top1)) },
    ];
    const [, lower, upper] = analyseSupport(placed(bodies));
    expect(upper!.issue).toBeUndefined();
    expect(lower!.issue).toMatchObject({ kind: 'overhang', side: 'right', edgeOf: 0, loadBodies: [1, 2] });
    // Equal masses at x = 2 and 2.33: the load acts at their mean.
    expect(lower!.load.x).toBeCloseTo((2 + 2.33) / 2, 5);
  });

  it('does not flag a plank bridging two pillars, and finds a block with nothing under it', () => {
    const bodies: SynthBody[] = [
      { type: 'RectSmall', pose: still(pillarAt(2)) },
      { type: 'RectSmall', pose: still(pillarAt(2.6)) },
      { type: 'RectSmall', pose: still(plankOn(2.3, pillarTop)) },
      { type: 'SquareTiny', pose: still([4, -1, 0]) },
    ];
    const result = analyseSupport(placed(bodies));
    expect(result.slice(0, 3).map((r) => r.issue)).toEqual([undefined, undefined, undefined]);
    expect(result[2]!.contacts.map((c) => c.by).sort()).toEqual([0, 1]);
    expect(result[3]!.issue).toMatchObject({ kind: 'unsupported', landsOn: GROUND });
    if (result[3]!.issue?.kind !== 'unsupported') throw new Error('expected unsupported');
    expect(result[3]!.issue.dropHeight).toBeCloseTo(-1 - SQ_H / 2 - GROUND_TOP_Y, 5);
  });
});

describe('explainFrames on constructed streams', () => {
  it('reports nothing for a level that stays put', () => {
    const bodies: SynthBody[] = [
      { type: 'RectSmall', pose: still(pillarAt(2)) },
      { type: 'SquareTiny', pose: still(squareOnGround(3)) },
    ];
    const e = explainFrames({ dt: 0.02, bodies: bodyInfos(bodies), frames: synthFrames(bodies, 500), events: [], windowSteps: 500 });
    expect(e.firstMover).toBeNull();
    expect(e.moving).toBe(0);
    expect(e.score).toBe(1);
    expect(e.failureOrder).toEqual([]);
    expect(e.bodies.every((b) => b.reason === null && !b.moved)).toBe(true);
    // Frames 0…500: the window starts on step 1 and ends with the stream, before its step 503.
    expect([e.streamSteps, e.windowStart, e.windowEnd]).toEqual([501, 1, 500]);
  });

  it('names the plank over an edge as the first mover, tipping because of the overhang', () => {
    const tip = movesFrom(plankOn(2.3, pillarTop), 3, [0.005, -0.004, -0.03]);
    const bodies: SynthBody[] = [
      { type: 'RectSmall', pose: still(pillarAt(2)) },
      // Turns 0.03 rad per step from step 3 and drifts right and down; stops after 40 steps.
      { type: 'RectSmall', pose: (s) => tip(Math.min(s, 43)) },
    ];
    const e = explainFrames({ levelId: 'edge', dt: 0.02, bodies: bodyInfos(bodies), frames: synthFrames(bodies, 510), events: [], windowSteps: 500 });
    expect(e.firstMover).toBe(1);
    expect(e.origin).toBe(1);
    const plank = e.bodies[1]!;
    expect(plank.reason?.kind).toBe('overhang');
    expect(plank.reason?.cause).toBe(0);
    expect(plank.motion.kind).toBe('tipped');
    // Onset: the first step the turn reaches 2° (0.03 rad per step from step 3 → step 5).
    expect(plank.onsetStep).toBe(3 + Math.ceil((2 * Math.PI) / 180 / 0.03));
    // Crossing: first step with displacement ≥ 0.1, computed from the pose function.
    const cross = Array.from({ length: 501 }, (_, s) => s).find((s) => displacementAt(bodies[1]!, s) >= 0.1);
    expect(plank.crossStep).toBe(cross);
    expect(plank.moved).toBe(true);
    expect(e.bodies[0]!.moved).toBe(false);
    expect(e.moving).toBe(1);
    expect(e.score).toBe(0.5);
    expect(e.failureOrder).toEqual([1]);
    const text = formatExplanation(e);
    expect(text).toContain('First mover: #1 RectSmall at step 5');
    expect(text).toContain('overhang');
    expect(text).toContain('→ stability 0.5000');
  });

  it('says a block was struck by the moving block that hit it', () => {
    const slide = movesFrom(squareOnGround(2), 2, [0.01, 0, 0]);
    const pushed = movesFrom(squareOnGround(2.5), 26, [0.008, 0, 0]);
    const bodies: SynthBody[] = [
      { type: 'SquareTiny', pose: (s) => slide(Math.min(s, 60)) },
      { type: 'SquareTiny', pose: (s) => pushed(Math.min(s, 60)) },
    ];
    const events: SimEvent[] = [
      { kind: 'contact', step: 25, a: 0, b: 1, relativeSpeed: 0.6 },
      { kind: 'damage', step: 25, id: 0, amount: 0.6, health: 4.4 },
      { kind: 'damage', step: 25, id: 1, amount: 0.6, health: 4.4 },
    ];
    const e = explainFrames({ dt: 0.02, bodies: bodyInfos(bodies), frames: synthFrames(bodies, 500), events, windowSteps: 500 });
    expect(e.firstMover).toBe(0);
    expect(e.bodies[0]!.reason?.kind).toBe('slid');
    expect(e.bodies[1]!.reason).toMatchObject({ kind: 'struck', cause: 0, step: 25, relativeSpeed: 0.6 });
    expect(e.bodies[1]!.damageTaken).toBeCloseTo(0.6, 6);
    expect(e.failureOrder).toEqual([0, 1]);
    expect(e.timeline.some((t) => t.kind === 'onset' && t.ids[0] === 1 && t.text.includes('struck by #0 SquareTiny'))).toBe(true);
  });

  it('explains a block destroyed by impacts, and judges it at its last position before removal', () => {
    const fall = movesFrom([3, -1, 0], 0, [0, -0.05, 0]);
    const hitStep = 44;
    const deathStep = 46;
    const removedStep = deathStep + 25;
    const sink = movesFrom(squareOnGround(3), deathStep, [0, -0.02, 0]);
    const bodies: SynthBody[] = [
      { type: 'SquareTiny', pose: (s) => (s < hitStep ? fall(s) : [3, fall(hitStep)[1], 0]) },
      { type: 'SquareTiny', pose: (s) => sink(Math.min(s, removedStep - 1)), alive: (s) => s < deathStep },
    ];
    const events: SimEvent[] = [
      { kind: 'contact', step: hitStep, a: 0, b: 1, relativeSpeed: 4.5 },
      { kind: 'damage', step: hitStep, id: 0, amount: 4.5, health: 0.5 },
      { kind: 'damage', step: hitStep, id: 1, amount: 4.5, health: 0.5 },
      { kind: 'contact', step: deathStep, a: 0, b: 1, relativeSpeed: 1 },
      { kind: 'damage', step: deathStep, id: 1, amount: 1, health: -0.5 },
      { kind: 'destroyed', step: deathStep, id: 1 },
      { kind: 'removed', step: removedStep, id: 1, reason: 'death' },
    ];
    const e = explainFrames({ dt: 0.02, bodies: bodyInfos(bodies), frames: synthFrames(bodies, 500), events, windowSteps: 500 });
    expect(e.firstMover).toBe(0);
    expect(e.bodies[0]!.reason).toMatchObject({ kind: 'unsupported', cause: 1 });
    const victim = e.bodies[1]!;
    expect(victim.reason).toMatchObject({ kind: 'destroyed', cause: 0, step: deathStep });
    expect(victim.reason?.damage).toBeCloseTo(5.5, 6);
    expect(victim.deathStep).toBe(deathStep);
    expect(victim.removedStep).toBe(removedStep);
    expect(victim.lastStep).toBe(removedStep - 1);
    expect(victim.finalDisplacement).toBeCloseTo(displacementAt(bodies[1]!, removedStep - 1), 4);
    expect(victim.moved).toBe(true);
    expect(e.deaths).toEqual([{ id: 1, step: deathStep, cause: 'destroyed', removedStep, damage: 5.5, hits: 2 }]);
    expect(e.score).toBe(0);
    expect(formatExplanation(e)).toContain('destroyed at step 46');
  });

  it('calls straight-down sinking of a stack top "settled" and does not name it first mover', () => {
    const col = (row: number): Pose => [5, GROUND_TOP_Y + GAP + SQ_H / 2 + row * (SQ_H + 0.03), 0];
    const sinkTop = movesFrom(col(3), 1, [0, -0.011, 0]);
    const tip = movesFrom(plankOn(2.3, pillarTop), 30, [0.005, -0.004, -0.03]);
    const bodies: SynthBody[] = [
      { type: 'SquareTiny', pose: still(col(0)) },
      { type: 'SquareTiny', pose: still(col(1)) },
      { type: 'SquareTiny', pose: still(col(2)) },
      { type: 'SquareTiny', pose: (s) => sinkTop(Math.min(s, 11)) },
      { type: 'RectSmall', pose: still(pillarAt(2)) },
      { type: 'RectSmall', pose: (s) => tip(Math.min(s, 70)) },
    ];
    const e = explainFrames({ dt: 0.02, bodies: bodyInfos(bodies), frames: synthFrames(bodies, 500), events: [], windowSteps: 500 });
    expect(e.bodies[3]!.reason?.kind).toBe('settled');
    expect(e.bodies[3]!.moved).toBe(true);
    expect(e.failureOrder[0]).toBe(3);
    expect(e.firstMover).toBe(5);
    expect(e.bodies[5]!.reason?.kind).toBe('overhang');
    expect(e.moving).toBe(2);
  });

  it('names the body carried off when its support moves first', () => {
    const slide = movesFrom(squareOnGround(2), 10, [0.01, 0, 0]);
    const top = GROUND_TOP_Y + GAP + SQ_H;
    const ride = movesFrom([2, top + GAP + SQ_H / 2, 0], 12, [0.01, 0, 0]);
    const bodies: SynthBody[] = [
      { type: 'SquareTiny', pose: (s) => slide(Math.min(s, 40)) },
      { type: 'SquareTiny', pose: (s) => ride(Math.min(s, 42)) },
    ];
    const e = explainFrames({ dt: 0.02, bodies: bodyInfos(bodies), frames: synthFrames(bodies, 100), events: [], windowSteps: 100 });
    expect(e.firstMover).toBe(0);
    expect(e.bodies[1]!.reason).toMatchObject({ kind: 'support-moved', cause: 0 });
    expect(e.bodies[1]!.supporters).toEqual([0]);
  });

  it("ignores frames after the window (it ends on the evaluator's last read, step 503) and samples the displacement series", () => {
    // Moves from step 504 on: after the window.
    const late = movesFrom(squareOnGround(2), 504, [0.05, 0, 0]);
    const bodies: SynthBody[] = [{ type: 'SquareTiny', pose: late }];
    const e = explainFrames({ dt: 0.02, bodies: bodyInfos(bodies), frames: synthFrames(bodies, 514), events: [], windowSteps: 500 }, { sampleEvery: 10 });
    expect(e.moving).toBe(0);
    expect(e.bodies[0]!.displacement).toHaveLength(52); // steps 0, 10, …, 500 and 503
    expect(JSON.parse(JSON.stringify(e)).bodies[0].lastStep).toBe(503);
    // Moving from step 502 on: step 503 reads it.
    const justIn: SynthBody[] = [{ type: 'SquareTiny', pose: movesFrom(squareOnGround(2), 502, [0.2, 0, 0]) }];
    expect(explainFrames({ dt: 0.02, bodies: bodyInfos(justIn), frames: synthFrames(justIn, 514), events: [], windowSteps: 500 }).moving).toBe(1);
  });
});

describe('explainFrames: overlaps and motion episodes', () => {
  it('names blocks the level places inside each other', () => {
    const bodies: SynthBody[] = [
      { type: 'RectSmall', pose: movesFrom(plankOn(2.3, GROUND_TOP_Y), 0, [0, -0.001, 0]) },
      // A square whose centre lies inside the plank: both are pushed apart at once.
      { type: 'SquareTiny', pose: movesFrom([2.4, GROUND_TOP_Y + 0.15, 0], 0, [0, 0.06, 0]) },
      { type: 'SquareTiny', pose: still(squareOnGround(4)) },
    ];
    const e = explainFrames({ dt: 0.02, bodies: bodyInfos(bodies), frames: synthFrames(bodies, 100), events: [], windowSteps: 100 });
    // The boxes overlap by min(x overlap, y overlap) = the square's full height inside the plank.
    expect(e.bodies[1]!.staticIssue).toMatchObject({ kind: 'overlap', with: [0] });
    expect(e.bodies[0]!.staticIssue).toMatchObject({ kind: 'overlap', with: [1] });
    expect(e.bodies[2]!.staticIssue).toBeNull();
    expect(e.firstMover).toBe(1);
    expect(e.bodies[1]!.reason?.kind).toBe('overlap');
  });

  it('dates the onset from the last rest before the failure, not from an early settling wobble', () => {
    // The plank over the edge turns 3° while landing (steps 1–3), rests, then tips from step 40.
    const start = plankOn(2.3, pillarTop);
    const tip = movesFrom([start[0], start[1], -0.06], 40, [0.005, -0.004, -0.03]);
    const plank = (s: number): Pose =>
      s === 0 ? start : s < 3 ? [start[0], start[1], -0.02 * s] : s < 40 ? [start[0], start[1], -0.06] : tip(Math.min(s, 80));
    const bodies: SynthBody[] = [
      { type: 'RectSmall', pose: still(pillarAt(2)) },
      { type: 'RectSmall', pose: plank },
    ];
    const e = explainFrames({ dt: 0.02, bodies: bodyInfos(bodies), frames: synthFrames(bodies, 200), events: [], windowSteps: 200 });
    // At rest (zero velocity) through step 40, moving from step 41 on.
    expect(e.bodies[1]!.onsetStep).toBe(41);
    expect(e.firstMover).toBe(1);
  });
});

describe('mergeBatches', () => {
  it('joins batches and rejects gaps', () => {
    const bodies: SynthBody[] = [{ type: 'SquareTiny', pose: (s) => [s, 0, 0] }];
    const batches = synthFrames(bodies, 120, 50);
    const series = mergeBatches(batches, 1);
    expect(series.stepCount).toBe(121);
    expect(series.states[120 * 6]).toBe(120);
    expect(() => mergeBatches([batches[0]!, batches[2]!], 1)).toThrow(/not contiguous: expected step 50, got a batch starting at step 100/);
    expect(() => mergeBatches(batches, 2)).toThrow(/has 1 bodies, the level has 2/);
  });
});
