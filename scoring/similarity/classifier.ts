/**
 * The ViT classifier through onnxruntime-node: one session for the whole run, images in batches,
 * softmax over the logits (as `torch.nn.Softmax(dim=-1)` in the official script), the CLS vector beside.
 * Identical inputs (same preprocessed tensor, by SHA-256) are inferred once per classifier: many trials
 * produce the same level and therefore the same picture.
 */
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import * as ort from 'onnxruntime-node';
import { SbevalError } from '../../core/errors.js';
import type { VitModelInfo } from './model-info.js';
import { softmax } from './probabilities.js';

export interface ClassifierOptions {
  /**
   * Intra-op threads; 0 (default) lets onnxruntime use one per physical core. On a busy machine fewer
   * threads waste less CPU per image (see `npm run bench -- vit`).
   */
  threads?: number;
  /** Images per session run (default: one per core, `defaultBatchSize`). */
  batchSize?: number;
  /** Let idle intra-op threads spin (onnxruntime's default; sbeval's default is off, see `create`). */
  spinning?: boolean;
}

/**
 * Images per session run by default: one per core. On this project's 2-core machine batch 2 was the
 * fastest of 1…16 with 2 threads (`npm run bench -- vit`); larger batches only add latency.
 */
export function defaultBatchSize(): number {
  return Math.max(1, availableParallelism());
}

export interface Classification {
  logits: Float32Array;
  /** softmax(logits), float32 values. */
  probabilities: Float32Array;
  /** CLS token of the last encoder layer before the final LayerNorm; undefined if the model has no such output. */
  cls: Float32Array | undefined;
}

export interface ClassifierStats {
  /** Images asked for. */
  requested: number;
  /** Images actually run through the model. */
  inferred: number;
  /** Session runs. */
  runs: number;
}

function tensorDigest(tensor: Float32Array): string {
  return createHash('sha256')
    .update(new Uint8Array(tensor.buffer, tensor.byteOffset, tensor.byteLength))
    .digest('hex');
}

export class VitClassifier {
  private readonly cache = new Map<string, Promise<Classification>>();
  private pending: Array<{ tensor: Float32Array; resolve: (c: Classification) => void; reject: (e: unknown) => void }> = [];
  private readonly stats: ClassifierStats = { requested: 0, inferred: 0, runs: 0 };
  private chain: Promise<void> = Promise.resolve();
  private running = false;

  private constructor(
    private readonly session: ort.InferenceSession,
    readonly info: VitModelInfo,
    readonly batchSize: number,
    private readonly inputName: string,
    private readonly logitsName: string,
    private readonly clsName: string | undefined,
    private readonly inputDims: [number, number, number],
  ) {}

  /** Opens `model` (a path or the ONNX bytes). */
  static async create(model: string | Uint8Array, info: VitModelInfo, options: ClassifierOptions = {}): Promise<VitClassifier> {
    const threads = options.threads ?? 0;
    const batchSize = options.batchSize ?? defaultBatchSize();
    if (!Number.isInteger(threads) || threads < 0)
      throw new SbevalError('similarity', `threads must be a non-negative integer (0 = onnxruntime's default), got ${threads}`);
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new SbevalError('similarity', `batch size must be a positive integer, got ${batchSize}`);
    const sessionOptions: ort.InferenceSession.SessionOptions = {
      graphOptimizationLevel: 'all',
      executionMode: 'sequential',
      interOpNumThreads: 1,
      ...(threads > 0 ? { intraOpNumThreads: threads } : {}),
      // Idle intra-op threads sleep instead of spinning: a ViT-B run is hundreds of ms of large kernels, so
      // the wake-up costs nothing, while spinning threads take the CPU that image decoding (and, in `sbeval
      // run`, the physics engines) need. Measured on this project's 2-core machine under load: 0.40–0.43
      // images/s at 582–598 CPU ms/image without spinning vs 0.28–0.31 at 791–795 with it (batch 2).
      ...(options.spinning ? {} : { extra: { session: { intra_op: { allow_spinning: '0' } } } }),
    };
    let session: ort.InferenceSession;
    try {
      session = typeof model === 'string' ? await ort.InferenceSession.create(model, sessionOptions) : await ort.InferenceSession.create(model, sessionOptions);
    } catch (error) {
      throw new SbevalError('similarity', `onnxruntime cannot load the model: ${(error as Error).message}`, undefined, { cause: error });
    }
    const inputName = session.inputNames.includes(info.inputName) ? info.inputName : session.inputNames[0];
    const logitsName = session.outputNames.includes(info.logitsName) ? info.logitsName : undefined;
    if (!inputName || !logitsName) {
      await session.release();
      throw new SbevalError(
        'similarity',
        `the model needs an input and a "${info.logitsName}" output; it has inputs [${session.inputNames}] and outputs [${session.outputNames}]`,
      );
    }
    const clsName = session.outputNames.includes(info.clsName) ? info.clsName : undefined;
    const p = info.preprocessor;
    return new VitClassifier(session, info, batchSize, inputName, logitsName, clsName, [3, p.height, p.width]);
  }

  get hasCls(): boolean {
    return this.clsName !== undefined;
  }

  statistics(): ClassifierStats {
    return { ...this.stats };
  }

  /**
   * Classifies one preprocessed image ([3, H, W] float32). Calls made together are batched; an input
   * seen before (same bytes) returns the earlier result without running the model.
   */
  classify(tensor: Float32Array): Promise<Classification> {
    this.stats.requested += 1;
    const expected = this.inputDims[0] * this.inputDims[1] * this.inputDims[2];
    if (tensor.length !== expected)
      return Promise.reject(new SbevalError('similarity', `input has ${tensor.length} values, the model takes ${this.inputDims.join('×')}`));
    const key = tensorDigest(tensor);
    const known = this.cache.get(key);
    if (known) return known;
    const result = new Promise<Classification>((resolve, reject) => {
      this.pending.push({ tensor, resolve, reject });
      // Calls made in the same tick share a batch: the drain runs after them.
      queueMicrotask(() => this.drain());
    });
    // A failed inference must not poison later identical requests.
    result.catch(() => this.cache.delete(key));
    this.cache.set(key, result);
    return result;
  }

  /** Classifies many images; resolves in input order. */
  classifyAll(tensors: readonly Float32Array[]): Promise<Classification[]> {
    return Promise.all(tensors.map((t) => this.classify(t)));
  }

  /**
   * One session run at a time (onnxruntime parallelises inside a run), started as soon as the previous
   * one ends with whatever is waiting, up to `batchSize`: images that arrive one by one from the
   * preprocessing workers never wait for a batch to fill while the session is idle, and pile up into
   * full batches while it is busy. The outputs do not depend on how images are grouped (onnxruntime's
   * CPU kernels compute each image's rows alike whatever the batch; the stage tests compare files).
   */
  private drain(): void {
    if (this.running || this.pending.length === 0) return;
    const batch = this.pending.splice(0, this.batchSize);
    this.running = true;
    this.chain = this.run(batch).finally(() => {
      this.running = false;
      this.drain();
    });
  }

  private async run(batch: Array<{ tensor: Float32Array; resolve: (c: Classification) => void; reject: (e: unknown) => void }>): Promise<void> {
    const [c, h, w] = this.inputDims;
    const size = c * h * w;
    const input = new Float32Array(batch.length * size);
    batch.forEach((b, i) => input.set(b.tensor, i * size));
    try {
      const out = await this.session.run({ [this.inputName]: new ort.Tensor('float32', input, [batch.length, c, h, w]) });
      this.stats.runs += 1;
      this.stats.inferred += batch.length;
      const logits = out[this.logitsName]!.data as Float32Array;
      const labels = logits.length / batch.length;
      const cls = this.clsName ? (out[this.clsName]!.data as Float32Array) : undefined;
      const hidden = cls ? cls.length / batch.length : 0;
      batch.forEach((b, i) => {
        const l = logits.slice(i * labels, (i + 1) * labels);
        b.resolve({ logits: l, probabilities: softmax(l), cls: cls ? cls.slice(i * hidden, (i + 1) * hidden) : undefined });
      });
    } catch (error) {
      const e = new SbevalError('similarity', `inference failed: ${(error as Error).message}`, undefined, { cause: error });
      for (const b of batch) b.reject(e);
    }
  }

  async close(): Promise<void> {
    while (this.running || this.pending.length > 0) {
      this.drain();
      await this.chain;
    }
    await this.session.release();
  }
}
