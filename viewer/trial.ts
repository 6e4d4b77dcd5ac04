import type { EngineIdentity, SimulationSettings } from '../bridge/engine.js';
import { type BodyInfo, FIELD_COUNT, type FrameBatch, type SimEvent } from '../bridge/frames.js';
import { loadLevel } from '../bridge/headless/load-level.js';
import { groundTiles, type ObjectPlan, planObjects } from '../bridge/headless/objects.js';
import { mergeBatches } from '../scoring/explain/series.js';
import { localShape } from '../scoring/explain/shapes.js';
import { type Explanation, explainFrames } from '../scoring/explain.js';
import { describeSteps, displacementFrom, measureTrial } from '../scoring/stability.js';
import type { Path, ViewerBody, ViewerMeta } from './page-data.js';

/**
 * One trial as the viewer shows it: the body table, every frame and event, the capture, and the
 * level XML it came from. It is filled either from a trace file (bridge/trace.ts) or by running the
 * headless engine on a level on demand (./simulate-trial.ts, or the playground's page: viewer/play/);
 * the viewer does not care which. This module uses no Node API: the playground's bundle builds the
 * viewer's meta and frames with it in the page.
 */
export interface TrialData {
  levelId: string;
  dt: number;
  bodies: BodyInfo[];
  frames: FrameBatch[];
  events: SimEvent[];
  settings: SimulationSettings;
  xml: string | undefined;
  capture: Uint8Array | undefined;
  engine: EngineIdentity | undefined;
  /** Where it came from: a trace file's path, or `simulated`. */
  source: string;
}

export function explainTrial(trial: TrialData): Explanation {
  return explainFrames({
    levelId: trial.levelId,
    dt: trial.dt,
    bodies: trial.bodies,
    frames: trial.frames,
    events: trial.events,
    windowSteps: trial.settings.windowSteps,
  });
}

// --- What the browser receives --------------------------------------------------------------------

const toPath = (points: ReadonlyArray<readonly [number, number]>): Path => points.map(([x, y]) => [x, y]);

/** The engine's own object plans (outlines, image shapes) when the trial carries its level XML. */
function plansOf(trial: TrialData): { plans: ObjectPlan[] | undefined; width: number } {
  if (trial.xml === undefined) return { plans: undefined, width: 3 };
  try {
    const level = loadLevel(trial.xml);
    const plans = planObjects(level);
    return { plans: plans.length === trial.bodies.length ? plans : undefined, width: level.width };
  } catch {
    return { plans: undefined, width: 3 };
  }
}

export function viewerMeta(trial: TrialData, explanation: Explanation = explainTrial(trial)): ViewerMeta {
  const { plans, width } = plansOf(trial);
  const bodies: ViewerBody[] = trial.bodies.map((b, i) => {
    const plan = plans?.[i];
    if (plan) return { ...b, outline: plan.outline.map(toPath), draw: plan.draw ? plan.draw.paths.map(toPath) : null, framesImage: plan.framesImage };
    const outline = [toPath(localShape(b).points)];
    return { ...b, outline, draw: b.kind === 'platform' ? null : outline, framesImage: b.kind === 'block' };
  });
  const tiles = groundTiles(width);
  const top = Math.max(...tiles.map((t) => t.y + t.halfHeight));
  const left = Math.min(...tiles.map((t) => t.x - t.halfWidth));
  const right = Math.max(...tiles.map((t) => t.x + t.halfWidth));
  return {
    levelId: trial.levelId,
    source: trial.source,
    dt: trial.dt,
    stepCount: explanation.streamSteps,
    bodyCount: trial.bodies.length,
    windowStart: explanation.windowStart,
    windowEnd: explanation.windowEnd,
    steps: describeSteps(explanation, trial.dt),
    settings: trial.settings,
    engine: trial.engine ?? null,
    bodies,
    events: trial.events,
    ground: { top, left, right },
    explanation,
    hasCapture: trial.capture !== undefined,
  };
}

/** The binary frames body described at `ViewerMeta`. */
export function viewerFrames(trial: TrialData): Uint8Array {
  const series = mergeBatches(trial.frames, trial.bodies.length);
  const floats = series.stepCount * series.bodyCount * FIELD_COUNT;
  const cells = series.stepCount * series.bodyCount;
  const out = new Uint8Array(floats * 4 + cells + cells * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < floats; i++) view.setFloat32(i * 4, series.states[i]!, true);
  out.set(series.alive, floats * 4);
  // Displacements from the start positions the stability tracker read (the verdict's), per step.
  const { measure } = measureTrial(trial.bodies, trial.frames, trial.events, trial.settings.windowSteps);
  const removedAt = new Map<number, number>();
  for (const e of trial.events) if (e.kind === 'removed' && !removedAt.has(e.id)) removedAt.set(e.id, e.step);
  const base = floats * 4 + cells;
  measure.objects.forEach((body, b) => {
    const until = removedAt.get(body.id) ?? Infinity;
    let held = 0;
    for (let s = 0; s < series.stepCount; s++) {
      if (s < until) {
        const o = (s * series.bodyCount + b) * FIELD_COUNT;
        held = displacementFrom(body.start, series.states[o]!, series.states[o + 1]!);
      }
      view.setFloat32(base + (s * series.bodyCount + b) * 4, held, true);
    }
  });
  return out;
}
