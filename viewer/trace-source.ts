import { readTrace } from '../bridge/trace.js';
import { SbevalError } from '../core/errors.js';
import type { TrialData } from './trial.js';

/**
 * Opens a trace file as a trial. Every reader of traces goes through bridge/trace.ts (the one shared
 * loader: versions, gzip, truncated files); this adapter only maps its result onto `TrialData`.
 */
export async function openTraceFile(path: string): Promise<TrialData> {
  const trace = await readTrace(path);
  if (trace.bodies.length === 0 || trace.frames.stepCount === 0) {
    const why = trace.error ? `the run failed: ${trace.error.message}` : 'it holds no frames';
    throw new SbevalError('input', `${path}: nothing to show, ${why}`, 'record the trial again (sbeval run --traces, or sbeval record)');
  }
  return {
    levelId: trace.header.levelId,
    dt: trace.dt,
    bodies: trace.bodies,
    frames: [trace.frames],
    events: trace.events,
    settings: trace.header.settings,
    xml: trace.header.xml,
    capture: trace.capture?.png,
    engine: trace.header.engine,
    source: path,
  };
}
