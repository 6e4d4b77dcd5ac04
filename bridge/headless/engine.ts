import { createHash } from 'node:crypto';
import { parseLevelXml } from '../../levels/xml-read.js';
import type { Level } from '../../levels/level.js';
import { SbevalError, describeError } from '../../core/errors.js';
import type { Engine, EngineIdentity, LevelJob, LevelSink } from '../engine.js';
import { SIMULATION_BUDGET, type SimulationBudget } from './budget.js';
import { encodePng } from './png.js';
import { levelSeed, simulateTrial } from './run.js';
import { physicsDigestSource } from './settings.js';

/** Version of the headless engine's behaviour: bump when results can change (part of cache digests). */
export const HEADLESS_ENGINE_VERSION = '1.1.0';

/** Digest of the physics settings, the simulation budget and the engine version (cache keys, engine identity). */
export function headlessDigest(): string {
  return createHash('sha256').update(`${HEADLESS_ENGINE_VERSION}\n${physicsDigestSource()}\n${JSON.stringify(SIMULATION_BUDGET)}`).digest('hex').slice(0, 16);
}

/** A level the engine cannot load: the pool does not retry it elsewhere (`levelError`). */
export class LevelLoadError extends SbevalError {
  readonly levelError = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super('input', message, undefined, options);
    this.name = 'LevelLoadError';
  }
}

export function loadLevel(xml: string): Level {
  try {
    return parseLevelXml(xml);
  } catch (error) {
    throw new LevelLoadError(`level XML cannot be loaded: ${describeError(error)}`, { cause: error });
  }
}

let nextId = 0;

/**
 * The in-process headless engine: planck.js configured as the evaluator (see world.ts, settings.ts).
 * One `run` is one trial; it is synchronous inside (a level takes milliseconds), then encodes the PNGs.
 */
export class HeadlessEngine implements Engine {
  readonly id: string;
  readonly identity: EngineIdentity;
  private closed = false;
  private readonly budget: SimulationBudget;

  /** `budget`: the simulation budget (budget.ts; tests use small ones). */
  constructor(id?: string, options: { budget?: SimulationBudget } = {}) {
    this.budget = options.budget ?? SIMULATION_BUDGET;
    this.id = id ?? `headless-${process.pid}-${nextId++}`;
    this.identity = { kind: 'headless', description: `planck.js 1.4.2, evaluator settings ${headlessDigest()}`, version: HEADLESS_ENGINE_VERSION };
  }

  async run(job: LevelJob, sink: LevelSink, signal?: AbortSignal): Promise<void> {
    if (this.closed) throw new SbevalError('simulate', `engine ${this.id} is closed`);
    if (signal?.aborted) throw new SbevalError('simulate', `level ${job.levelId} cancelled`);
    const level = loadLevel(job.xml);
    let images;
    try {
      images = simulateTrial(level, levelSeed(job.xml), job.settings, sink, () => signal?.aborted === true, this.budget);
    } catch (error) {
      if (error instanceof SbevalError) {
        if (error.phase === 'input') throw new LevelLoadError(error.message, { cause: error });
        throw error;
      }
      throw new SbevalError('simulate', `level ${job.levelId}: ${describeError(error)}`, undefined, { cause: error });
    }
    if (signal?.aborted) throw new SbevalError('simulate', `level ${job.levelId} cancelled`);
    if (job.settings.capture && images) {
      const png = await encodePng(images.image);
      sink.capture(images.raw ? { png, raw: await encodePng(images.raw) } : { png });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
