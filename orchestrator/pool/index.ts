export { EnginePool, defaultClassifyError, levelsToKeepBusy } from './engine-pool.js';
export { GuardedSink, StreamViolation } from './stream-guard.js';
export { NOT_KEPT_REASON, ResultLedger } from './result-ledger.js';
export { PoolJobError, ENGINE_FAULTS } from './types.js';
export type {
  AttemptFailureKind,
  AttemptRecord,
  EngineFactory,
  EngineHealth,
  EnginePoolOptions,
  ErrorClass,
  LevelSinkFactory,
  PoolEvent,
  PoolFailureKind,
  PoolRequest,
  PoolRunResult,
} from './types.js';
