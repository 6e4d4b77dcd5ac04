import type { PreprocessorConfig } from '../../scoring/similarity/preprocess.js';

/** Messages between the preprocessing pool (main thread) and its workers (structured clone, buffers transferred). */
export type ToPrepareWorker = { id: number; png: Uint8Array; config: PreprocessorConfig };

export type FromPrepareWorker = { type: 'ready' } | { type: 'done'; id: number; tensor: Float32Array } | { type: 'failed'; id: number; message: string };
