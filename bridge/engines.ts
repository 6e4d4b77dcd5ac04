import { availableParallelism } from 'node:os';
import { SbevalError } from '../core/errors.js';
import type { Engine } from './engine.js';
import { type CreateEnginesOptions, engineStart, STARTED_ENGINES } from './engine-kinds.js';

/** Engines to start by default: one per core. */
export function defaultEngineCount(): number {
  return Math.max(1, availableParallelism());
}

/**
 * Engine construction by kind, for stages and the pool: each kind says how it starts
 * (bridge/engine-kinds.ts); `bridge` starts none here.
 */
export async function createEngines(kind: string, count: number, options: CreateEnginesOptions = {}): Promise<Engine[]> {
  if (!Number.isInteger(count) || count < 1) throw new SbevalError('config', `engine count must be a positive integer, got ${count}`);
  const start = engineStart(kind);
  if (start === undefined) throw new SbevalError('config', `unknown engine "${kind}"`, `choose one of: ${STARTED_ENGINES.join(', ')}`);
  return start(count, options);
}
