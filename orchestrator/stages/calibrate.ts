import { DEFAULT_SIMULATION, type Engine } from '../../bridge/engine.js';
import { type CollectedTrial, memorySink } from '../../bridge/memory-sink.js';
import { describeOffset, type LevelStreams, measureStepOffset, type StepOffset } from '../../scoring/step-offset.js';
import { type EnginePool, type EnginePoolOptions, PoolJobError } from '../pool/index.js';
import { type Agreement, type AgreementSummary, differs, headlessFactory, type LevelAgreement, measureAgreement, type ReferenceLevel } from './agreement.js';
import type { Ruler } from './ruler.js';

/**
 * `sbeval unity calibrate --unity <editor> --project <p>`: the Unity engine (the evaluator's own
 * project driven by the plugin) and the headless engine on the evaluator's reference levels, side by
 * side, each compared with the evaluator's own stability JSON and images; and both engines on the
 * reference and timing-ruler levels step by step: where a body moves without touching anything, the
 * two streams must show it at the same place on the same step (the step offset, scoring/step-offset.ts).
 * Below the thresholds, or at any offset but 0, the Unity installation does not reproduce the
 * evaluator's timing and the command fails.
 */

/**
 * Minimum agreement of the Unity engine with the evaluator's reference results, as shares of the
 * levels (so a subset of the reference works too). Chosen, not fitted: the headless engine's measured
 * agreement on the 90 levels (verdicts 90/90, counts 89/90, mean IoU 0.967, stable minimum 0.992,
 * docs/headless-engine.md, "Fidelity") with room for Unity's own trial-to-trial variation on collapsing
 * levels (its trials share one physics world, so a rerun of the evaluator need not repeat its
 * counts). No real Unity run has measured them yet (unity-plugin/README.md, "Known unknowns").
 */
export const CALIBRATION_THRESHOLDS = Object.freeze({
  /** Stable/unstable verdict equal to the evaluator's (88 of 90). */
  stableAgreement: 0.975,
  /** Moving count equal to the evaluator's (85 of 90). */
  movingEqual: 0.94,
  /** Mean image IoU over all levels. */
  meanIou: 0.96,
  /** Smallest image IoU over the levels the evaluator found stable (the same pixels but for settling). */
  minStableIou: 0.99,
});

interface CalibrationCheck {
  measure: string;
  unity: string;
  headless: string;
  threshold: string;
  ok: boolean;
}

export interface Calibration {
  unity: Agreement;
  headless: Agreement;
  /** Unity's stream against the headless engine's, step by step, over the collision-free motion of the reference and ruler levels. */
  offset: StepOffset;
  /** Ruler levels the Unity engine gave no stream for, with the reason. */
  rulerFailures: Array<{ level: string; reason: string }>;
  checks: CalibrationCheck[];
  ok: boolean;
}

const share = (n: number, of: number): string => `${n}/${of}`;
const f4 = (n: number): string => n.toFixed(4);

/** The threshold checks of the Unity engine's agreement (the headless engine's shown beside it). */
export function calibrationChecks(unity: AgreementSummary, headless: AgreementSummary, t = CALIBRATION_THRESHOLDS): CalibrationCheck[] {
  const n = unity.levels;
  const atLeast = (fraction: number): number => Math.ceil(fraction * n - 1e-9);
  return [
    {
      measure: 'stable/unstable verdict',
      unity: share(unity.stableAgreement, n),
      headless: share(headless.stableAgreement, headless.levels),
      threshold: `≥ ${atLeast(t.stableAgreement)}/${n}`,
      ok: unity.stableAgreement >= atLeast(t.stableAgreement),
    },
    {
      measure: 'moving count equal',
      unity: share(unity.movingEqual, n),
      headless: share(headless.movingEqual, headless.levels),
      threshold: `≥ ${atLeast(t.movingEqual)}/${n}`,
      ok: unity.movingEqual >= atLeast(t.movingEqual),
    },
    // A level without a Unity result (every attempt failed, or no instance was left) fails the
    // calibration whatever the shares: the thresholds are about results, not about missing ones.
    { measure: 'levels without a result', unity: String(unity.failed), headless: String(headless.failed), threshold: '0', ok: unity.failed === 0 },
    { measure: 'score equal (float32)', unity: share(unity.scoreEqual, n), headless: share(headless.scoreEqual, headless.levels), threshold: '—', ok: true },
    { measure: 'image IoU, mean', unity: f4(unity.meanIou), headless: f4(headless.meanIou), threshold: `≥ ${t.meanIou}`, ok: unity.meanIou >= t.meanIou },
    {
      measure: `image IoU, minimum over the ${unity.unityStable} evaluator-stable levels`,
      unity: f4(unity.minStableIou),
      headless: f4(headless.minStableIou),
      threshold: `≥ ${t.minStableIou}`,
      ok: unity.minStableIou >= t.minStableIou,
    },
  ];
}

interface CalibrationOptions {
  levels: ReferenceLevel[];
  /** Levels run once more on both engines (trial 1, no capture) for the step offset: the timing ruler. */
  ruler?: Ruler;
  unityEngines: Engine[];
  headlessEngines: Engine[];
  unityPool?: Omit<EnginePoolOptions, 'engines'>;
  onLevel?: (engine: 'unity' | 'headless', done: number, total: number, level: LevelAgreement) => void;
}

export async function runCalibration(options: CalibrationOptions): Promise<Calibration> {
  // Headless engines are replaced when the pool retires one. Unity instances are not (the fleet
  // restarts crashed ones itself; one whose stream was refused stays out): the others run the
  // remaining levels, and levels left without any engine are recorded as failures, which fail the
  // calibration (exit 1) with their reasons listed.
  const streams = { headless: new Map<string, CollectedTrial>(), unity: new Map<string, CollectedTrial>() };
  const rulerFailures: Calibration['rulerFailures'] = [];
  const ruler = options.ruler;
  // The ruler levels run on the same engines once the reference levels are done (trial 1, no capture).
  const rulerRuns = (into: Map<string, CollectedTrial>, failures?: Calibration['rulerFailures']) =>
    ruler
      ? async (pool: EnginePool) => {
          for (const [level, got] of await runTrialOne(pool, ruler)) {
            if (!('failure' in got)) into.set(level, got);
            else failures?.push({ level, reason: got.failure });
          }
        }
      : undefined;
  const headlessRuler = rulerRuns(streams.headless);
  const headless = await measureAgreement({
    engines: options.headlessEngines,
    levels: options.levels,
    pool: { factory: headlessFactory() },
    onLevel: (d, t, l) => options.onLevel?.('headless', d, t, l),
    onTrialOne: (level, stream) => streams.headless.set(level, stream),
    ...(headlessRuler ? { alsoRun: headlessRuler } : {}),
  });
  const unityRuler = rulerRuns(streams.unity, rulerFailures);
  const unity = await measureAgreement({
    engines: options.unityEngines,
    levels: options.levels,
    ...(options.unityPool ? { pool: options.unityPool } : {}),
    onLevel: (d, t, l) => options.onLevel?.('unity', d, t, l),
    onTrialOne: (level, stream) => streams.unity.set(level, stream),
    ...(unityRuler ? { alsoRun: unityRuler } : {}),
  });
  const pairs: LevelStreams[] = [];
  for (const [level, reference] of streams.headless) {
    const tested = streams.unity.get(level);
    if (tested) pairs.push({ level, reference: { batches: reference.frames, events: reference.events }, tested: { batches: tested.frames } });
  }
  const offset = measureStepOffset(pairs);
  const checks = [
    ...calibrationChecks(unity.summary, headless.summary),
    offsetCheck(offset),
    ...(options.ruler ? [rulerRunCheck(rulerFailures, options.ruler.levels.length)] : []),
  ];
  return { unity, headless, offset, rulerFailures, checks, ok: checks.every((c) => c.ok) };
}

function offsetCheck(offset: StepOffset): CalibrationCheck {
  const best = offset.best;
  return {
    measure: `step offset against the headless engine (collision-free motion of ${offset.bodies} bodies in ${offset.levels} levels)`,
    unity:
      offset.offset !== undefined
        ? `${offset.offset} (largest difference ${f4(best?.error ?? 0)})`
        : best
          ? `none fits (best ${best.offset}: ${f4(best.error)})`
          : 'nothing to compare',
    headless: '0 (the reference)',
    threshold: `0, within ${offset.tolerance}`,
    ok: offset.offset === 0,
  };
}

function rulerRunCheck(failures: Calibration['rulerFailures'], levels: number): CalibrationCheck {
  return { measure: 'ruler levels without a stream', unity: `${failures.length}/${levels}`, headless: '0', threshold: '0', ok: failures.length === 0 };
}

/** Runs trial 1 of every ruler level (no capture, the ruler's window), a few at a time; each level's kept stream, or why it has none. */
async function runTrialOne(pool: EnginePool, ruler: Ruler): Promise<Map<string, CollectedTrial | { failure: string }>> {
  const out = new Map<string, CollectedTrial | { failure: string }>();
  await Promise.all(
    ruler.levels.map(async ({ name, xml }) => {
      let kept = memorySink();
      try {
        await pool.run({
          job: { levelId: name, xml, settings: { ...DEFAULT_SIMULATION, windowSteps: ruler.windowSteps, trial: 1, capture: false } },
          sink: () => (kept = memorySink()).sink,
        });
        out.set(name, kept.data);
      } catch (error) {
        if (!(error instanceof PoolJobError)) throw error;
        out.set(name, { failure: error.message });
      }
    }),
  );
  return out;
}

/** The agreement table, then the levels where the Unity engine differs from the evaluator (with the headless engine beside it). */
export function calibrationMarkdown(c: Calibration, allLevels = false): string {
  const n = c.unity.summary.levels;
  const lines = [
    `Agreement with the Unity evaluator's own results on ${n} reference level${n === 1 ? '' : 's'} (chatgpt4pcg/modified-science-birds @84df32e; up to 3 trials each, the evaluator's bookkeeping)`,
    '',
    '| measure | Unity engine | headless engine | threshold (Unity) | |',
    '| --- | --- | --- | --- | --- |',
    ...c.checks.map((k) => `| ${k.measure} | ${k.unity} | ${k.headless} | ${k.threshold} | ${k.threshold === '—' ? '' : k.ok ? 'ok' : 'BELOW'} |`),
    '',
  ];
  const headless = new Map(c.headless.levels.map((l) => [l.level, l]));
  const shown = c.unity.levels.filter((l) => allLevels || differs(l));
  if (shown.length === 0) {
    lines.push('Every level agrees with the evaluator (verdict, moving count, image IoU ≥ 0.99).');
  } else {
    lines.push(
      allLevels ? 'Every level:' : `Levels where the Unity engine differs from the evaluator (verdict, moving count, or image IoU < 0.99): ${shown.length}`,
    );
    lines.push('');
    lines.push('| level | evaluator moving | Unity moving | headless moving | evaluator score | Unity score | headless score | Unity IoU | headless IoU |');
    lines.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const l of shown) {
      const h = headless.get(l.level);
      const count = (x: { movingObjects: number; startingObjects: number }): string => `${x.movingObjects}/${x.startingObjects}`;
      lines.push(
        `| ${l.level} | ${count(l.evaluator)} | ${l.failure !== undefined ? `no result: ${l.failure.replace(/\|/g, '\\|')}` : count(l.engine)} | ${h ? count(h.engine) : '—'} | ${l.evaluator.score.toFixed(3)} | ${l.engine.score.toFixed(3)} | ${h ? h.engine.score.toFixed(3) : '—'} | ${f4(l.iou)} | ${h ? f4(h.iou) : '—'} |`,
      );
    }
  }
  lines.push('');
  lines.push(`Step offset: ${describeOffset(c.offset)}.`);
  for (const f of c.rulerFailures) lines.push(`- ruler level ${f.level}: no stream from Unity: ${f.reason}`);
  lines.push('');
  lines.push(
    c.ok
      ? "calibrate: the Unity engine reproduces the evaluator's results within the thresholds and the headless engine's collision-free motion step for step."
      : 'calibrate: FAILED: the Unity engine is below a threshold or off by a step (see the table; docs/unity.md, "Calibrating an installation").',
  );
  return lines.join('\n');
}
