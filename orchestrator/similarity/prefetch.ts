import { availableParallelism } from 'node:os';
import type { ImageClassifier } from './image-classifier.js';

/**
 * Similarity while the levels are still being simulated (`sbeval run`): every image a level machine
 * writes is handed at once to the run's classifier, a few at a time, so inference overlaps the physics.
 * Nothing is written here: the classifier keeps each result under the PNG's hash, and the similarity
 * stage, which runs after the levels as before (on the same classifier), finds them there and writes the
 * files it would have written anyway (test/orchestrator/run-overlap.test.ts compares the bytes).
 *
 * The classifier is opened on the first image (or when the similarity stage first needs it), so a run
 * with nothing left to do opens no model. A failure (the model cannot be opened, an image cannot be
 * read or inferred) only ends the prefetching of that image — the similarity stage meets the same image
 * (or opens the model) again and records what happens then, as without prefetching.
 */
export class SimilarityPrefetch {
  private readonly queue: Uint8Array[] = [];
  private active = 0;
  private stopped = false;
  private idle: Array<() => void> = [];
  private opened: Promise<ImageClassifier | undefined> | undefined;
  /** Images taken from the queue. */
  started = 0;
  /** Images the classifier finished here (the similarity stage finds them done). */
  classified = 0;

  /**
   * `window`: images read and waiting for the session at most at once (each holds a decoded tensor of
   * ~600 KB until inferred): three batches of one image per core keep the session busy (its default
   * batch is one image per core) without piling up memory.
   */
  constructor(
    private readonly open: () => Promise<ImageClassifier>,
    private readonly window = Math.max(4, 3 * availableParallelism()),
    /**
     * Images waiting beyond the window: the physics outruns inference by far (~150 levels/s against a
     * few images/s), so the queue is bounded and the images past it are left to the similarity stage
     * (the engine's 1-bit PNGs are a few KB each, Unity's RGBA screenshots far more).
     */
    private readonly maxQueued = 1024,
  ) {}

  /** Queues a committed image (the PNG file's bytes: a few KB for the engine's 1-bit images). */
  add(png: Uint8Array): void {
    if (this.stopped || this.queue.length >= this.maxQueued) return;
    this.opened ??= this.open().catch(() => undefined);
    this.queue.push(png);
    this.pump();
  }

  /**
   * The run's classifier for the similarity stage (opened now if no image has opened it yet, so every
   * folder of the run shares one); undefined when it cannot be opened — the stage then opens the model
   * itself and reports why it fails.
   */
  async classifier(): Promise<ImageClassifier | undefined> {
    this.opened ??= this.open().catch(() => undefined);
    return this.opened;
  }

  private pump(): void {
    while (!this.stopped && this.active < this.window && this.queue.length > 0) {
      const png = this.queue.shift()!;
      this.active += 1;
      this.started += 1;
      void this.one(png).finally(() => {
        this.active -= 1;
        if (this.active === 0) for (const resolve of this.idle.splice(0)) resolve();
        this.pump();
      });
    }
  }

  private async one(png: Uint8Array): Promise<void> {
    try {
      // An image taken from the queue is classified even after `stop`: the stage would ask for it anyway,
      // and shares the same pending result (the classifier's PNG-hash cache).
      const classifier = await this.opened;
      if (!classifier) return;
      await classifier.classifyPng(png);
      this.classified += 1;
    } catch {
      // Dropped: the similarity stage meets this image again and records what happens then.
    }
  }

  /** Drops what is still queued (the similarity stage does it) and waits for the images in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    if (this.active === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  /** Stops, then closes the classifier if one was opened. */
  async close(): Promise<void> {
    await this.stop();
    await (await this.opened)?.close();
  }
}
