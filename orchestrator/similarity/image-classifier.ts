import { availableParallelism } from 'node:os';
import { sha256 } from '../../core/hash.js';
import { type Classification, type ClassifierStats, VitClassifier } from '../../scoring/similarity/classifier.js';
import type { VitModelInfo } from '../../scoring/similarity/model-info.js';
import { PreparePool, PreprocessError } from './prepare-pool.js';

/**
 * The similarity stage's engine: PNG bytes → classification, at the rate of the ONNX session.
 * - PNGs are decoded, resized and normalised in worker threads (prepare-pool.ts) while the session runs;
 * - the session takes batches of whatever is ready (scoring/similarity/classifier.ts);
 * - identical images are classified once for as long as this object lives (a whole `sbeval run`, every
 *   team and model folder): by the PNG's SHA-256 before decoding, then by the tensor's (two PNG files
 *   with the same pixels but other bytes) before inference.
 */
interface ImageClassifierOptions {
  /** Path of the ONNX model (or its bytes). */
  model: string | Uint8Array;
  info: VitModelInfo;
  /** onnxruntime intra-op threads (0 = onnxruntime's default, one per physical core). */
  threads?: number;
  /** Images per session run (default: one per core). */
  batchSize?: number;
  /** Preprocessing worker threads (default `defaultPrepareWorkers()`; 0 = in this thread). */
  prepareWorkers?: number;
}

interface ImageClassifierStats extends ClassifierStats {
  /** PNGs decoded and preprocessed (the others were byte-identical to one seen before). */
  prepared: number;
}

/**
 * One preprocessing worker per 4 cores, at least one: a 1024² evaluator image takes ~15–25 ms CPU to
 * prepare against ~500 ms of ViT-B inference (`npm run bench -- vit`), so one worker keeps several
 * cores of inference fed, and every extra one would only take CPU from the session.
 */
export function defaultPrepareWorkers(): number {
  return Math.max(1, Math.floor(availableParallelism() / 4));
}

export class ImageClassifier {
  private readonly byPng = new Map<string, Promise<Classification>>();
  private requested = 0;

  private constructor(
    private readonly classifier: VitClassifier,
    private readonly pool: PreparePool,
    readonly info: VitModelInfo,
  ) {}

  static async open(options: ImageClassifierOptions): Promise<ImageClassifier> {
    const classifier = await VitClassifier.create(options.model, options.info, {
      ...(options.threads !== undefined ? { threads: options.threads } : {}),
      ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
    });
    let pool: PreparePool;
    try {
      pool = await PreparePool.start(options.prepareWorkers ?? defaultPrepareWorkers());
    } catch (error) {
      await classifier.close();
      throw error;
    }
    return new ImageClassifier(classifier, pool, options.info);
  }

  get hasCls(): boolean {
    return this.classifier.hasCls;
  }

  get batchSize(): number {
    return this.classifier.batchSize;
  }

  /**
   * Classifies one PNG file's bytes. Rejects with a `PreprocessError` (the decoder's reason) for an image
   * that cannot be read, with the classifier's error when inference fails.
   */
  classifyPng(png: Uint8Array): Promise<Classification> {
    const key = sha256(png);
    const known = this.byPng.get(key);
    // `requested` counts images classified (an unreadable one is not), so requested − inferred = reused.
    const counted = (p: Promise<Classification>) =>
      p.then((c) => {
        this.requested += 1;
        return c;
      });
    if (known) return counted(known);
    const result = this.pool
      .prepare(png, this.info.preprocessor)
      .catch((error: unknown) => {
        throw error instanceof PreprocessError ? error : new PreprocessError(error instanceof Error ? error.message : String(error));
      })
      .then((tensor) => this.classifier.classify(tensor));
    // A failure is not kept: the same bytes are tried again if asked again.
    result.catch(() => this.byPng.delete(key));
    this.byPng.set(key, result);
    return counted(result);
  }

  statistics(): ImageClassifierStats {
    const inner = this.classifier.statistics();
    return { requested: this.requested, inferred: inner.inferred, runs: inner.runs, prepared: this.pool.prepared };
  }

  async close(): Promise<void> {
    await this.pool.close();
    await this.classifier.close();
  }
}
