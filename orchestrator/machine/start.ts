import { createActor, type InspectionEvent, toPromise } from 'xstate';
import { createLevelActors, type LevelEffects } from './actors.js';
import { levelMachine } from './machine.js';
import type { LevelInput, LevelOutcome } from './types.js';

/** The machine with the runner's effects. */
export function provideLevelMachine(effects: LevelEffects) {
  return levelMachine.provide({ actors: createLevelActors(effects) });
}

type ProvidedLevelMachine = ReturnType<typeof provideLevelMachine>;

/**
 * Starts one level's actor with its deterministic id (`level:<level id>`, never random, so the run
 * log lines up across runs) and resolves with its outcome once it reaches `done` or `failed`.
 */
export function startLevel(
  machine: ProvidedLevelMachine,
  input: LevelInput,
  options: { inspect?: (event: InspectionEvent) => void; signal?: AbortSignal } = {},
): Promise<LevelOutcome> {
  const actor = createActor(machine, { input, id: `level:${input.level.id}`, inspect: options.inspect });
  const onAbort = () => actor.send({ type: 'CANCEL', reason: `cancelled: ${String((options.signal?.reason as Error | undefined)?.message ?? 'aborted')}` });
  options.signal?.addEventListener('abort', onAbort, { once: true });
  actor.start();
  if (options.signal?.aborted) onAbort();
  else actor.send({ type: 'START' });
  return toPromise(actor).finally(() => options.signal?.removeEventListener('abort', onAbort));
}
