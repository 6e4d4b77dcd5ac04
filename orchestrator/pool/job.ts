import type { AttemptRecord, PoolRequest, PoolRunResult } from './types.js';

/** A level fault an engine without sbeval's rules claimed for a job (checked by claims.ts). */
interface Claim {
  engineId: string;
  serial: number;
  reason: string;
}

/** A job the pool was asked to run (`EnginePool.run`), from its request to its single end. */
export interface Pending {
  request: PoolRequest;
  levelId: string;
  maxAttempts: number;
  attempts: AttemptRecord[];
  tried: Set<string>;
  avoid: Set<string>;
  /** Level faults engines without sbeval's rules claimed for this job (the job never goes back to them). */
  claims: Claim[];
  resolve: (result: PoolRunResult) => void;
  reject: (error: unknown) => void;
  /** Ends the running attempt (set while one runs). */
  cancelAttempt: ((reason: string) => void) | undefined;
  detachAbort: () => void;
}

export function newPending(request: PoolRequest, maxAttempts: number, resolve: Pending['resolve'], reject: Pending['reject']): Pending {
  return {
    request,
    levelId: request.job.levelId,
    maxAttempts,
    attempts: [],
    tried: new Set(),
    avoid: new Set(request.avoidEngines ?? []),
    claims: [],
    resolve,
    reject,
    cancelAttempt: undefined,
    detachAbort: () => {},
  };
}

/** The engines' claims of a job, kept beside the reason sbeval's rules gave (`PoolJobError.detail`). */
export function claimsDetail(pending: Pending): string | undefined {
  return pending.claims.length === 0 ? undefined : pending.claims.map((c) => `engine ${c.engineId} said: ${c.reason}`).join('; ');
}
