import type { TrialData } from './trial.js';

/**
 * Opens a trace file as a trial. Every reader of traces goes through bridge/trace.ts (the one shared
 * loader); this adapter only maps its result onto the viewer's `TrialData`.
 */
export async function openTraceFile(path: string): Promise<TrialData> {
  throw new Error(`${path}: reading trace files needs bridge/trace.ts, which this build does not have yet`);
}
