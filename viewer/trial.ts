import { DEFAULT_SIMULATION, type Engine, type EngineIdentity, type SimulationSettings } from '../bridge/engine.js';
import { type BodyInfo, FIELD_COUNT, type FrameBatch, type SimEvent } from '../bridge/frames.js';
import { HeadlessEngine, loadLevel } from '../bridge/headless/engine.js';
import { groundTiles, type ObjectPlan, planObjects } from '../bridge/headless/objects.js';
import { memorySink } from '../bridge/memory-sink.js';
import { mergeBatches } from '../scoring/explain/series.js';
import { localShape } from '../scoring/explain/shapes.js';
import { type Explanation, explainFrames } from '../scoring/explain.js';
import { describeSteps, displacementFrom, measureTrial } from '../scoring/stability.js';
import type { Path, ViewerBody, ViewerMeta } from './page-data.js';

/**
 * One trial as the viewer shows it: the body table, every frame and event, the capture, and the
 * level XML it came from. It is filled either from a trace file (bridge/trace.ts) or by running the
 * headless engine on a level on demand; the viewer does not care which.
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

/** Runs one trial of a level on an engine (the in-process headless one by default) and keeps all of it. */
export async function simulateTrialData(levelId: string, xml: string, settings: Partial<SimulationSettings> = {}, engine?: Engine): Promise<TrialData> {
  const own = engine ?? new HeadlessEngine();
  const full: SimulationSettings = { ...DEFAULT_SIMULATION, ...settings };
  const { sink, data } = memorySink();
  try {
    await own.run({ levelId, xml, settings: full }, sink);
  } finally {
    if (!engine) await own.close();
  }
  return {
    levelId,
    dt: data.dt,
    bodies: data.bodies,
    frames: data.frames,
    events: data.events,
    settings: full,
    xml,
    capture: data.png,
    engine: own.identity,
    source: 'simulated',
  };
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
export function viewerFrames(trial: TrialData): Buffer {
  const series = mergeBatches(trial.frames, trial.bodies.length);
  const floats = series.stepCount * series.bodyCount * FIELD_COUNT;
  const cells = series.stepCount * series.bodyCount;
  const out = Buffer.alloc(floats * 4 + cells + cells * 4);
  for (let i = 0; i < floats; i++) out.writeFloatLE(series.states[i]!, i * 4);
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
      out.writeFloatLE(held, base + (s * series.bodyCount + b) * 4);
    }
  });
  return out;
}
