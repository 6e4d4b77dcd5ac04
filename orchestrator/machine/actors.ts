import { fromPromise } from 'xstate';
import type { CaptureInput, CaptureOutput, CommitInput, SimulateInput, SimulateOutput, StepInput, StepOutput } from './types.js';

/**
 * The effects a level machine needs, as plain async functions that honour an AbortSignal (it fires
 * when the machine leaves the state: a timeout, a cancel). The runner implements them over the
 * competition folder and the engine pool; tests implement them in memory.
 */
export interface LevelEffects {
  extract(input: StepInput, signal: AbortSignal): Promise<StepOutput>;
  convert(input: StepInput, signal: AbortSignal): Promise<StepOutput>;
  simulate(input: SimulateInput, signal: AbortSignal): Promise<SimulateOutput>;
  capture(input: CaptureInput, signal: AbortSignal): Promise<CaptureOutput>;
  commit(input: CommitInput, signal: AbortSignal): Promise<StepOutput>;
}

/** The named actors for `levelMachine.provide({ actors })`. */
export function createLevelActors(effects: LevelEffects) {
  return {
    extract: fromPromise<StepOutput, StepInput>(({ input, signal }) => effects.extract(input, signal)),
    convert: fromPromise<StepOutput, StepInput>(({ input, signal }) => effects.convert(input, signal)),
    simulate: fromPromise<SimulateOutput, SimulateInput>(({ input, signal }) => effects.simulate(input, signal)),
    capture: fromPromise<CaptureOutput, CaptureInput>(({ input, signal }) => effects.capture(input, signal)),
    commit: fromPromise<StepOutput, CommitInput>(({ input, signal }) => effects.commit(input, signal)),
  };
}
