import { availableParallelism } from 'node:os';
import { SbevalError } from '../orchestrator/errors.js';
import type { Engine } from './engine.js';
import { HeadlessEngine } from './headless/engine.js';
import { WorkerEngine } from './headless/worker-engine.js';

/**
 * Engine construction by kind, for stages and the pool. One switch, one case per engine kind:
 * - `headless`: the planck.js engine in worker threads (one per engine, so levels run in parallel),
 *   or in this thread with `inProcess` (tests, one-level commands).
 * (`headless-ws` and `unity` are added by the bridge work.)
 */
export type EngineKind = 'headless';

export const ENGINE_KINDS: readonly EngineKind[] = ['headless'];

export interface CreateEnginesOptions {
  /** Run the headless engine in the calling thread instead of worker threads. */
  inProcess?: boolean;
}

/** Engines to start by default: one per core. */
export function defaultEngineCount(): number {
  return Math.max(1, availableParallelism());
}

export async function createEngines(kind: string, count: number, options: CreateEnginesOptions = {}): Promise<Engine[]> {
  if (!Number.isInteger(count) || count < 1) throw new SbevalError('config', `engine count must be a positive integer, got ${count}`);
  switch (kind) {
    case 'headless': {
      if (options.inProcess) return Array.from({ length: count }, () => new HeadlessEngine());
      const engines = Array.from({ length: count }, () => new WorkerEngine());
      try {
        await Promise.all(engines.map((e) => e.started()));
      } catch (error) {
        await Promise.all(engines.map((e) => e.close()));
        throw new SbevalError('launch', `headless worker failed to start: ${(error as Error).message}`, undefined, { cause: error });
      }
      return engines;
    }
    default:
      throw new SbevalError('config', `unknown engine "${kind}"`, `choose one of: ${ENGINE_KINDS.join(', ')}`);
  }
}
