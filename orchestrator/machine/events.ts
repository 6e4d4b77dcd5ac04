/**
 * The events a level machine receives. The first two come from the runner; the rest are the ones
 * XState itself sends (done/error of the invoked actors, the named `after` delays). They are spelled
 * out here so the graph tests can drive every transition without casts (lesson from Expensify's
 * `machineEvents.ts`, reference/model-codebases.md §5).
 */
type StartEvent = { type: 'START' };
type CancelEvent = { type: 'CANCEL'; reason: string };
type RunnerEvent = StartEvent | CancelEvent;

/** Invoked actor ids (fixed, so done/error event types are known). */
const ACTOR_IDS = { extract: 'extract', convert: 'convert', simulate: 'simulate', capture: 'capture', commit: 'commit' } as const;
type ActorId = (typeof ACTOR_IDS)[keyof typeof ACTOR_IDS];

/** Named delays (per-state timeouts). */
const DELAYS = ['extractTimeout', 'convertTimeout', 'simulateTimeout', 'captureTimeout', 'commitTimeout'] as const;
type DelayName = (typeof DELAYS)[number];

export const MACHINE_ID = 'level';

type DoneEvent<Id extends ActorId, Output> = { type: `xstate.done.actor.${Id}`; output: Output; actorId?: string };
type ErrorEvent<Id extends ActorId> = { type: `xstate.error.actor.${Id}`; error: unknown; actorId?: string };
type AfterEvent<D extends DelayName, S extends string> = { type: `xstate.after.${D}.${typeof MACHINE_ID}.${S}` };

export type LevelEvent = RunnerEvent;

/** Builders for the events XState sends, for tests and for the graph traversal. */
export const machineEvents = {
  start: (): StartEvent => ({ type: 'START' }),
  cancel: (reason: string): CancelEvent => ({ type: 'CANCEL', reason }),
  done: <Id extends ActorId, Output>(id: Id, output: Output): DoneEvent<Id, Output> => ({ type: `xstate.done.actor.${id}`, output }),
  error: <Id extends ActorId>(id: Id, message: string): ErrorEvent<Id> => ({ type: `xstate.error.actor.${id}`, error: { message } }),
  after: <D extends DelayName, S extends string>(delay: D, state: S): AfterEvent<D, S> => ({ type: `xstate.after.${delay}.${MACHINE_ID}.${state}` }),
};
