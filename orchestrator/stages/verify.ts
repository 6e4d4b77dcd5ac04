import { readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Engine, EngineIdentity, LevelSink, SimulationSettings } from '../../bridge/engine.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import type { Box2dOverrides } from '../../bridge/headless/settings.js';
import { memorySink } from '../../bridge/memory-sink.js';
import { checkTrialFrameBytes, traceFromBytes } from '../../bridge/trace.js';
import { describeError, SbevalError } from '../../core/errors.js';
import { type Agreement, compareTrials, DEFAULT_TOLERANCE, type TrialComparison } from '../../scoring/trial-comparison.js';
import { type ProgressSink, SILENT_PROGRESS } from '../progress/types.js';

/**
 * `sbeval verify <corpus>`: re-runs every recorded level (the trace carries its XML and settings) and
 * compares the new run with the recording, step by step and body by body: identical (every float32
 * and every event equal), within tolerance (poses within `tolerance`, same deaths), or diverged (with
 * the first diverging step and body; scoring/trial-comparison.ts); and whether the official stability
 * verdict changed.
 */

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
  /** Box2D constants changed for the replay (`HeadlessEngineOptions.box2d`; only with the built-in engine). */
  box2d?: Box2dOverrides;
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
  if (files.length === 0)
    throw new SbevalError(
      'input',
      `no traces (*.sbtrace, *.sbtrace.gz) under ${options.corpus}`,
      'record some with: sbeval record <levels-dir> --out <corpus>',
    );
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  const engine = options.engine ?? new HeadlessEngine(undefined, { box2d: options.box2d ?? {} });
  if (options.engine && Object.keys(options.box2d ?? {}).length > 0) {
    const hint = 'leave out `engine` to replay with changed constants';
    throw new SbevalError('config', 'Box2D constants can be changed only for the built-in headless engine', hint);
  }
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
        if (!recorded.complete || recorded.error)
          throw new Error(`the recording is ${recorded.error ? `of a failed run (${recorded.error.message})` : 'incomplete'}`);
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
