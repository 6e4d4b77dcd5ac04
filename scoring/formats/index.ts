/**
 * The official per-character JSON files, one module each: types, zod readers and byte-exact writers.
 *
 * - stability.ts — Science Birds Evaluator (Unity JsonUtility, 4-space indent, Unity float printing);
 *   unity-score.ts — its score formula, apart so the playground's bundle takes it without the readers
 * - similarity.ts — similarity-checking-script (Python json.dumps indent=2)
 * - diversity.ts — diversity-checking-script (Python json.dumps indent=2)
 *
 * Writers return the file text; callers write it atomically (orchestrator/layout/atomic.ts).
 */

export * from './diversity.js';
export type { PythonDumpOptions, PythonJsonValue } from './python-json.js';
export { formatPythonFloat, pythonJsonDumps, pythonJsonString } from './python-json.js';
export * from './similarity.js';
export * from './stability.js';
export { formatUnityDouble, formatUnityFloat } from './unity-float.js';
export { unityStabilityScore } from './unity-score.js';
