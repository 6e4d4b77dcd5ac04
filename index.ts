/**
 * The library entry: `import { ... } from 'sbeval'`.
 */
export type { Level, LevelObject, LevelBlock, LevelPig, LevelTnt, LevelPlatform, LevelCamera, Material } from './levels/level.js';
export { BLOCKS, MATERIALS, DEFAULT_MATERIAL, blockSpec, isMaterial } from './levels/catalog.js';
export type { BlockSpec, Collider, MaterialSpec } from './levels/catalog.js';
export { EnginePool, PoolJobError, defaultClassifyError } from './orchestrator/pool/index.js';
export type { EnginePoolOptions, EngineFactory, PoolEvent, PoolRequest, PoolRunResult, AttemptRecord } from './orchestrator/pool/index.js';

// Official per-character file formats (stability, similarity, diversity): types, readers, byte-exact writers.
export * from './scoring/formats/index.js';
