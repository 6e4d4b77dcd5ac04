import { describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { evaluatorWindow, isReadStep, loopIterations, OFFICIAL_WINDOW, stepsToSimulate } from '../../bridge/window.js';

/**
 * The evaluator's timing (bridge/window.ts), derived from BaseStabilityEvaluator.IE_StableCheck and
 * BaseSimilarityEvaluator.IE_TakeScreenshots at one physics step per frame.
 */
describe("the evaluator's window", () => {
  it('runs the `while (t <= duration)` loop as float32 C# does: 500 times for 10 s (t = 10.000039 after 500 adds)', () => {
    expect(loopIterations(10)).toBe(500);
    let t = 0;
    for (let i = 0; i < 500; i++) t = Math.fround(t + Math.fround(0.02));
    expect(t).toBeGreaterThan(10);
    // Where float32 rounding falls the other way, one more frame runs (0.2 s: 11 times).
    expect(loopIterations(0.2)).toBe(11);
    expect(loopIterations(0)).toBe(1);
  });

  it('reads start positions on step 1 and last positions on 2 … 501 and 503; the capture pass frames on 501, raw on 507, image on 514', () => {
    expect(OFFICIAL_WINDOW).toEqual({ durationSteps: 500, startStep: 1, loopIterations: 500, endStep: 503, boundStep: 501, rawStep: 507, imageStep: 514 });
    const reads = Array.from({ length: 520 }, (_, s) => s).filter((s) => isReadStep(OFFICIAL_WINDOW, s));
    expect(reads[0]).toBe(2);
    expect(reads.at(-2)).toBe(501);
    expect(reads.at(-1)).toBe(503);
    expect(reads).toHaveLength(501);
    expect(isReadStep(OFFICIAL_WINDOW, 502)).toBe(false);
  });

  it('a trial streams frames to the window end, or to the image step when it also renders', () => {
    expect(stepsToSimulate({ ...DEFAULT_SIMULATION, capture: false })).toBe(503);
    expect(stepsToSimulate({ ...DEFAULT_SIMULATION, capture: true })).toBe(514);
    expect(evaluatorWindow(40)).toMatchObject({ startStep: 1, loopIterations: 41, endStep: 44, boundStep: 41, rawStep: 47, imageStep: 54 });
    expect(() => evaluatorWindow(-1)).toThrow(/whole number/);
    expect(() => evaluatorWindow(2.5)).toThrow(/whole number/);
  });
});
