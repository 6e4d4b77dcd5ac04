import { SbevalError } from '../../core/errors.js';
import type { EnginePoolOptions, ErrorClass } from './types.js';

/** The pool's limits when the options leave them out (each one's reason: `EnginePoolOptions`, types.ts). */
const DEFAULTS = {
  jobTimeoutMs: 120_000,
  stallMs: 30_000,
  maxAttempts: 3,
  maxConsecutiveFailures: 2,
  settleMs: 2_000,
  closeMs: 5_000,
} as const;

/** The pool's limits and its error split, every one decided (`poolSettings`). */
export interface PoolSettings {
  jobTimeoutMs: number;
  stallMs: number;
  maxAttempts: number;
  maxConsecutiveFailures: number;
  maxReplacements: number;
  settleMs: number;
  closeMs: number;
  classifyError: (error: unknown) => ErrorClass;
}

/** Default split between level errors and engine faults (see `EnginePoolOptions.classifyError`). */
export function defaultClassifyError(error: unknown): ErrorClass {
  if (error !== null && typeof error === 'object' && (error as { levelError?: unknown }).levelError === true) return 'level';
  if (error instanceof SbevalError && (error.phase === 'input' || error.phase === 'convert')) return 'level';
  return 'engine';
}

/** The options' limits with the defaults filled in; the restart budget is 4 replacements per starting engine. */
export function poolSettings(config: EnginePoolOptions): PoolSettings {
  const initial = config.engines?.length || config.size || 1;
  return {
    jobTimeoutMs: config.jobTimeoutMs ?? DEFAULTS.jobTimeoutMs,
    stallMs: config.stallMs ?? DEFAULTS.stallMs,
    maxAttempts: config.maxAttempts ?? DEFAULTS.maxAttempts,
    maxConsecutiveFailures: config.maxConsecutiveFailures ?? DEFAULTS.maxConsecutiveFailures,
    settleMs: config.settleMs ?? DEFAULTS.settleMs,
    closeMs: config.closeMs ?? DEFAULTS.closeMs,
    classifyError: config.classifyError ?? defaultClassifyError,
    maxReplacements: config.maxReplacements ?? 4 * initial,
  };
}
