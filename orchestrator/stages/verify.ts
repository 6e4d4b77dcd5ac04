import { readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { Settings } from 'planck';
import type { Engine, EngineIdentity, SimulationSettings } from '../../bridge/engine.js';
import { FIELD_COUNT, type BodyInfo, type FrameBatch, type SimEvent } from '../../bridge/frames.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { BOX2D_CONSTANTS } from '../../bridge/headless/settings.js';
import type { LevelSink } from '../../bridge/engine.js';
import { checkTrialFrameBytes, traceFromBytes } from '../../bridge/trace.js';
import { mergeBatches } from '../../scoring/explain/series.js';
import { trialStability } from '../../scoring/stability.js';
import { memorySink } from '../../bridge/memory-sink.js';
import { describeError, SbevalError } from '../../core/errors.js';
import { SILENT_PROGRESS, type ProgressSink } from '../progress/types.js';

/**
 * `sbeval verify <corpus>`: re-runs every recorded level (the trace carries its XML and settings) and
 * compares the new run with the recording, step by step and body by body: identical (every float32
 * and every event equal), within tolerance (poses within `tolerance`, same deaths), or diverged (with
 * the first diverging step and body); and whether the official stability verdict changed.
 */

/** Default tolerance on x, y (units) and angle (radians): far below the 0.1 movement threshold, far above float32 noise. */
export const DEFAULT_TOLERANCE = 1e-4;

type Agreement = 'identical' | 'within-tolerance' | 'diverged';
type DivergenceField = 'x' | 'y' | 'angle' | 'vx' | 'vy' | 'omega' | 'alive' | 'bodies' | 'steps';

export interface Divergence {
  step: number;
  /** Body id (−1 when the difference is not about one body: body tables or step counts). */
  body: number;
  type: string | null;
  field: DivergenceField;
  recorded: number;
  replayed: number;
  delta: number;
}

interface Verdict {
  score: number;
  moving: number[];
}

export interface TrialComparison {
  agreement: Agreement;
  /** The first step/body where anything differs at all (bit for bit). */
  firstDifference: Divergence | null;
  /** The first step/body past the tolerance, or where a body's life differs. */
  firstDivergence: Divergence | null;
  maxPositionDelta: number;
  maxAngleDelta: number;
  stepsCompared: number;
  eventsIdentical: boolean;
  firstEventDifference: { index: number; recorded: SimEvent | null; replayed: SimEvent | null } | null;
  recorded: Verdict;
  replayed: Verdict;
  verdictChanged: boolean;
}

interface TrialRecord {
  bodies: readonly BodyInfo[];
  frames: readonly FrameBatch[];
  events: readonly SimEvent[];
}

const FIELDS: readonly DivergenceField[] = ['x', 'y', 'angle', 'vx', 'vy', 'omega'];

function sameEvent(a: SimEvent, b: SimEvent): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.is((a as unknown as Record<string, unknown>)[k], (b as unknown as Record<string, unknown>)[k]));
}

/** Pure comparison of a recorded trial with a replayed one (same level and settings). */
export function compareTrials(recorded: TrialRecord, replayed: TrialRecord, windowSteps: number, tolerance = DEFAULT_TOLERANCE): TrialComparison {
  const verdictOf = (t: TrialRecord): Verdict => {
    const v = trialStability(t.bodies, t.frames, t.events, windowSteps);
    return { score: v.score, moving: v.moving };
  };
  const rv = verdictOf(recorded);
  const pv = verdictOf(replayed);
  const verdictChanged = rv.score !== pv.score || rv.moving.length !== pv.moving.length || rv.moving.some((id, i) => pv.moving[i] !== id);

  let firstDifference: Divergence | null = null;
  let firstDivergence: Divergence | null = null;
  let maxPositionDelta = 0;
  let maxAngleDelta = 0;
  let stepsCompared = 0;

  const sameBodies =
    recorded.bodies.length === replayed.bodies.length &&
    recorded.bodies.every((b, i) => {
      const o = replayed.bodies[i]!;
      return b.id === o.id && b.kind === o.kind && b.type === o.type && b.counted === o.counted;
    });
  if (!sameBodies) {
    firstDivergence = { step: 0, body: -1, type: null, field: 'bodies', recorded: recorded.bodies.length, replayed: replayed.bodies.length, delta: replayed.bodies.length - recorded.bodies.length };
    firstDifference = firstDivergence;
  } else {
    const n = recorded.bodies.length;
    const a = mergeBatches(recorded.frames, n);
    const b = mergeBatches(replayed.frames, n);
    stepsCompared = Math.min(a.stepCount, b.stepCount);
    for (let s = 0; s < stepsCompared; s++) {
      for (let body = 0; body < n; body++) {
        const base = (s * n + body) * FIELD_COUNT;
        const type = recorded.bodies[body]!.type;
        const aliveA = a.alive[s * n + body]!;
        const aliveB = b.alive[s * n + body]!;
        if (aliveA !== aliveB) {
          const d: Divergence = { step: s, body: recorded.bodies[body]!.id, type, field: 'alive', recorded: aliveA, replayed: aliveB, delta: aliveB - aliveA };
          firstDifference ??= d;
          firstDivergence ??= d;
        }
        for (let f = 0; f < FIELD_COUNT; f++) {
          const va = a.states[base + f]!;
          const vb = b.states[base + f]!;
          if (Object.is(va, vb)) continue;
          const delta = Math.abs(vb - va);
          const field = FIELDS[f]!;
          const d: Divergence = { step: s, body: recorded.bodies[body]!.id, type, field, recorded: va, replayed: vb, delta };
          firstDifference ??= d;
          // Tolerance applies to the pose; velocities only count towards "identical".
          if (f <= 1) maxPositionDelta = Math.max(maxPositionDelta, delta);
          if (f === 2) maxAngleDelta = Math.max(maxAngleDelta, delta);
          if (f <= 2 && !(delta <= tolerance)) firstDivergence ??= d;
        }
      }
    }
    if (a.stepCount !== b.stepCount) {
      const d: Divergence = { step: stepsCompared, body: -1, type: null, field: 'steps', recorded: a.stepCount, replayed: b.stepCount, delta: b.stepCount - a.stepCount };
      firstDifference ??= d;
      firstDivergence ??= d;
    }
  }

  let firstEventDifference: TrialComparison['firstEventDifference'] = null;
  const count = Math.max(recorded.events.length, replayed.events.length);
  for (let i = 0; i < count; i++) {
    const ea = recorded.events[i];
    const eb = replayed.events[i];
    if (ea && eb && sameEvent(ea, eb)) continue;
    firstEventDifference = { index: i, recorded: ea ?? null, replayed: eb ?? null };
    break;
  }
  const eventsIdentical = firstEventDifference === null;
  const agreement: Agreement = firstDivergence ? 'diverged' : firstDifference || !eventsIdentical ? 'within-tolerance' : 'identical';
  return { agreement, firstDifference, firstDivergence, maxPositionDelta, maxAngleDelta, stepsCompared, eventsIdentical, firstEventDifference, recorded: rv, replayed: pv, verdictChanged };
}

// --- Box2D overrides ----------------------------------------------------------------------------

export type Box2dName = keyof typeof BOX2D_CONSTANTS;
export const BOX2D_NAMES = Object.keys(BOX2D_CONSTANTS) as Box2dName[];

/**
 * Sets Box2D tuning constants (planck's global `Settings`, the names of bridge/headless/settings.ts
 * `BOX2D_CONSTANTS`) for the replay, to see what a physics change does to recorded runs. Returns the
 * function that puts the evaluator's values back. Only affects engines in this process.
 */
export function applyBox2dOverrides(overrides: Partial<Record<Box2dName, number>>): () => void {
  const settings = Settings as unknown as Record<string, number>;
  const saved = new Map<string, number>();
  for (const [name, value] of Object.entries(overrides)) {
    if (!(BOX2D_NAMES as string[]).includes(name)) throw new SbevalError('config', `unknown Box2D constant "${name}"`, `choose one of: ${BOX2D_NAMES.join(', ')}`);
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new SbevalError('config', `Box2D constant ${name} needs a finite number`);
    saved.set(name, settings[name]!);
    settings[name] = value;
  }
  return () => {
    for (const [name, value] of saved) settings[name] = value;
  };
}

// --- The stage -----------------------------------------------------------------------------------

/** Trace files by convention (bridge/trace.ts): `.sbtrace[.gz]`; `.trace[.gz]` accepted too. */
const TRACE_NAME = /\.(sb)?trace(\.gz)?$/;

export function findTraceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && TRACE_NAME.test(entry.name)) out.push(path);
    }
  };
  walk(dir);
  return out;
}

export interface VerifyOptions {
  corpus: string;
  tolerance?: number;
  /** Overrides of the recorded simulation settings for the replay (e.g. another damage formula). */
  settings?: Partial<Pick<SimulationSettings, 'damage' | 'windowSteps'>>;
  /** Box2D constants changed for the replay (see `applyBox2dOverrides`). */
  box2d?: Partial<Record<Box2dName, number>>;
  engine?: Engine;
}

export interface LevelVerification {
  /** Trace path relative to the corpus, `/`-separated. */
  trace: string;
  levelId: string;
  recordedEngine: EngineIdentity | null;
  comparison: TrialComparison | null;
  /** The trace could not be read or the replay failed. */
  error: string | null;
}

export interface VerifySummary {
  corpus: string;
  engine: EngineIdentity;
  tolerance: number;
  levels: LevelVerification[];
  counts: Record<Agreement | 'failed', number>;
  verdictChanges: number;
  elapsedMs: number;
}

/** `sink`, refusing a replay whose frames would not fit what a trace may hold, before its first frame. */
function boundedReplay(sink: LevelSink, settings: SimulationSettings, what: string): LevelSink {
  return {
    ...sink,
    loaded(bodies, dt) {
      checkTrialFrameBytes(bodies.length, settings, what);
      sink.loaded(bodies, dt);
    },
  };
}

export async function verifyCorpus(options: VerifyOptions, progress: ProgressSink = SILENT_PROGRESS): Promise<VerifySummary> {
  let files: string[];
  try {
    if (!statSync(options.corpus).isDirectory()) throw new Error('not a folder');
    files = findTraceFiles(options.corpus);
  } catch (error) {
    throw new SbevalError('input', `cannot read the corpus ${options.corpus}: ${describeError(error)}`);
  }
  if (files.length === 0) throw new SbevalError('input', `no traces (*.sbtrace, *.sbtrace.gz) under ${options.corpus}`, 'record some with: sbeval record <levels-dir> --out <corpus>');
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  const engine = options.engine ?? new HeadlessEngine();
  const restore = applyBox2dOverrides(options.box2d ?? {});
  const started = Date.now();
  const levels: LevelVerification[] = [];
  progress.start('verify', files.length);
  try {
    for (const file of files) {
      const trace = relative(options.corpus, file).split(sep).join('/');
      const entry: LevelVerification = { trace, levelId: trace, recordedEngine: null, comparison: null, error: null };
      levels.push(entry);
      try {
        // The whole file at once: the shared loader's in-memory path is several times faster than streaming for small traces.
        const recorded = traceFromBytes(await readFile(file), file);
        entry.levelId = recorded.header.levelId;
        entry.recordedEngine = recorded.header.engine;
        if (!recorded.complete || recorded.error) throw new Error(`the recording is ${recorded.error ? `of a failed run (${recorded.error.message})` : 'incomplete'}`);
        const settings: SimulationSettings = { ...recorded.header.settings, ...options.settings };
        // The replay holds its frames as a trace would: bodies × steps bounded before the run and again when the engine names its bodies.
        checkTrialFrameBytes(recorded.bodies.length, settings, file);
        const { sink, data } = memorySink();
        await engine.run({ levelId: recorded.header.levelId, xml: recorded.header.xml, settings }, boundedReplay(sink, settings, file));
        entry.comparison = compareTrials(
          { bodies: recorded.bodies, frames: [recorded.frames], events: recorded.events },
          { bodies: data.bodies, frames: data.frames, events: data.events },
          recorded.header.settings.windowSteps,
          tolerance,
        );
        const c = entry.comparison;
        progress.tick('verify', c.verdictChanged ? 'failed' : 'ok', trace, c.verdictChanged ? 'stability verdict changed' : undefined);
      } catch (error) {
        entry.error = describeError(error);
        progress.tick('verify', 'failed', trace, entry.error);
      }
    }
  } finally {
    restore();
    progress.end('verify');
    if (!options.engine) await engine.close();
  }
  const counts: VerifySummary['counts'] = { identical: 0, 'within-tolerance': 0, diverged: 0, failed: 0 };
  for (const l of levels) counts[l.comparison ? l.comparison.agreement : 'failed'] += 1;
  return {
    corpus: options.corpus,
    engine: engine.identity,
    tolerance,
    levels,
    counts,
    verdictChanges: levels.filter((l) => l.comparison?.verdictChanged).length,
    elapsedMs: Date.now() - started,
  };
}
