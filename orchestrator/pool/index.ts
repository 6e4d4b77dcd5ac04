export { EnginePool } from './engine-pool.js';
export { levelsToKeepBusy } from './dispatch.js';
export { defaultClassifyError } from './options.js';
export { GuardedSink } from './stream-guard.js';
export { NOT_KEPT_REASON, RUNS_PER_LEVEL, ResultLedger } from './result-ledger.js';
export { PoolJobError, ENGINE_FAULTS } from './types.js';
export type {
  AttemptRecord,
  EngineFactory,
  EnginePoolOptions,
  PoolEvent,
  PoolRequest,
  PoolRunResult,
} from './types.js';
