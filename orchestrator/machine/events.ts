import type { CaptureOutput, SimulateOutput, StepOutput } from './types.js';

/**
 * The events a level machine receives. The first two come from the runner; the rest are the ones
 * XState itself sends (done/error of the invoked actors, the named `after` delays). They are spelled
 * out here so the graph tests can drive every transition without casts (lesson from Expensify's
 * `machineEvents.ts`, reference/model-codebases.md §5).
 */
export type StartEvent = { type: 'START' };
export type CancelEvent = { type: 'CANCEL'; reason: string };
export type RunnerEvent = StartEvent | CancelEvent;

/** Invoked actor ids (fixed, so done/error event types are known). */
export const ACTOR_IDS = { extract: 'extract', convert: 'convert', simulate: 'simulate', capture: 'capture', commit: 'commit' } as const;
export type ActorId = (typeof ACTOR_IDS)[keyof typeof ACTOR_IDS];

/** Named delays (per-state timeouts). */
export const DELAYS = ['extractTimeout', 'convertTimeout', 'simulateTimeout', 'captureTimeout', 'commitTimeout'] as const;
export type DelayName = (typeof DELAYS)[number];

export const MACHINE_ID = 'level';

export type DoneEvent<Id extends ActorId, Output> = { type: `xstate.done.actor.${Id}`; output: Output; actorId?: string };
export type ErrorEvent<Id extends ActorId> = { type: `xstate.error.actor.${Id}`; error: unknown; actorId?: string };
export type AfterEvent<D extends DelayName, S extends string> = { type: `xstate.after.${D}.${typeof MACHINE_ID}.${S}` };

export type ExtractDone = DoneEvent<'extract', StepOutput>;
export type ConvertDone = DoneEvent<'convert', StepOutput>;
export type SimulateDone = DoneEvent<'simulate', SimulateOutput>;
export type CaptureDone = DoneEvent<'capture', CaptureOutput>;
export type CommitDone = DoneEvent<'commit', StepOutput>;

export type LevelEvent = RunnerEvent;

/** Builders for the events XState sends, for tests and for the graph traversal. */
export const machineEvents = {
  start: (): StartEvent => ({ type: 'START' }),
  cancel: (reason: string): CancelEvent => ({ type: 'CANCEL', reason }),
  done: <Id extends ActorId, Output>(id: Id, output: Output): DoneEvent<Id, Output> => ({ type: `xstate.done.actor.${id}`, output }),
  error: <Id extends ActorId>(id: Id, message: string): ErrorEvent<Id> => ({ type: `xstate.error.actor.${id}`, error: { message } }),
  after: <D extends DelayName, S extends string>(delay: D, state: S): AfterEvent<D, S> => ({ type: `xstate.after.${delay}.${MACHINE_ID}.${state}` }),
};
