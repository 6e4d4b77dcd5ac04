export { levelsToKeepBusy } from './dispatch.js';
export { EnginePool } from './engine-pool.js';
export { defaultClassifyError } from './options.js';
export { NOT_KEPT_REASON, ResultLedger, RUNS_PER_LEVEL } from './result-ledger.js';
export { GuardedSink } from './stream-guard.js';
export type {
  AttemptRecord,
  EngineFactory,
  EnginePoolOptions,
  PoolEvent,
  PoolRequest,
  PoolRunResult,
} from './types.js';
export { ENGINE_FAULTS, PoolJobError } from './types.js';
