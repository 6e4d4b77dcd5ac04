import { describe, expect, it } from 'vitest';
import { type LevelAgreement, summarize } from '../../orchestrator/stages/agreement.js';
import { CALIBRATION_THRESHOLDS, type Calibration, calibrationChecks, calibrationMarkdown } from '../../orchestrator/stages/calibrate.js';
import { measureStepOffset } from '../../scoring/step-offset.js';

/** The calibration verdict and table (the pure part of `sbeval unity calibrate`). */
function level(name: string, evaluatorMoving: number, engineMoving: number, iou: number, starting = 4): LevelAgreement {
  const score = (m: number) => 1 - m / starting;
  return {
    level: name,
    evaluator: { score: score(evaluatorMoving), startingObjects: starting, movingObjects: evaluatorMoving },
    engine: { score: score(engineMoving), startingObjects: starting, movingObjects: engineMoving, trialsRun: 1 },
    stableAgrees: (evaluatorMoving === 0) === (engineMoving === 0),
    movingEqual: evaluatorMoving === engineMoving,
    scoreEqual: evaluatorMoving === engineMoving,
    iou,
  };
}

function calibration(unity: LevelAgreement[], headless: LevelAgreement[]): Calibration {
  const checks = calibrationChecks(summarize(unity), summarize(headless));
  return {
    unity: { levels: unity, summary: summarize(unity) },
    headless: { levels: headless, summary: summarize(headless) },
    offset: measureStepOffset([]),
    rulerFailures: [],
    checks,
    ok: checks.every((c) => c.ok),
  };
}

describe('calibration thresholds', () => {
  const good = Array.from({ length: 40 }, (_, i) => level(`L${i}`, i % 4 === 0 ? 2 : 0, i % 4 === 0 ? 2 : 0, 0.995));

  it('passes when every measure is at or above its share of the levels', () => {
    const c = calibration(good, good);
    expect(c.ok).toBe(true);
    expect(c.checks.map((k) => k.threshold)).toEqual([
      '≥ 39/40',
      '≥ 38/40',
      '0',
      '—',
      `≥ ${CALIBRATION_THRESHOLDS.meanIou}`,
      `≥ ${CALIBRATION_THRESHOLDS.minStableIou}`,
    ]);
    expect(calibrationMarkdown(c)).toMatch(/Every level agrees with the evaluator/);
  });

  it('fails on two verdicts out of 40, on a stable level drawn differently, and lists those levels beside the headless engine', () => {
    const twoWrong = good.map((l, i) => (i < 2 ? level(l.level, 2, 0, 0.995) : l));
    const c = calibration(twoWrong, good);
    expect(c.ok).toBe(false);
    expect(c.checks.find((k) => k.measure === 'stable/unstable verdict')).toMatchObject({ unity: '38/40', headless: '40/40', ok: false });
    const text = calibrationMarkdown(c);
    expect(text).toMatch(/\| stable\/unstable verdict \| 38\/40 \| 40\/40 \| ≥ 39\/40 \| BELOW \|/);
    expect(text).toMatch(/\| L0 \| 2\/4 \| 0\/4 \| 2\/4 \| 0\.500 \| 1\.000 \| 0\.500 \| 0\.9950 \| 0\.9950 \|/);
    expect(text).toMatch(/calibrate: FAILED/);

    const smudged = good.map((l, i) => (i === 1 ? level(l.level, 0, 0, 0.98) : l));
    const d = calibration(smudged, good);
    expect(d.ok).toBe(false);
    expect(d.checks.find((k) => k.measure.startsWith('image IoU, minimum'))).toMatchObject({ unity: '0.9800', ok: false });
    expect(calibrationMarkdown(d)).toMatch(/\| L1 \| 0\/4 \| 0\/4 \| 0\/4 \|/);
  });

  it('fails when one level has no Unity result, although every share is still met, and says why', () => {
    // 39 of 40 verdicts would pass the shares: a missing result must fail the calibration on its own.
    const lost = good.map((l, i) =>
      i === 3
        ? {
            ...l,
            engine: { score: 0, startingObjects: 0, movingObjects: 0, trialsRun: 0 },
            stableAgrees: true,
            movingEqual: true,
            scoreEqual: true,
            failure: 'L3: no engine left to run it',
          }
        : l,
    );
    const c = calibration(lost, good);
    expect(c.ok).toBe(false);
    expect(c.checks.find((k) => k.measure === 'levels without a result')).toMatchObject({ unity: '1', headless: '0', ok: false });
    expect(calibrationMarkdown(c)).toMatch(/\| L3 \| 0\/4 \| no result: L3: no engine left to run it \|/);
  });
});
