import { createHash } from 'node:crypto';
import { describeError, SbevalError } from '../../core/errors.js';
import { Recent } from '../../core/recent.js';
import type { Level } from '../../levels/level.js';
import type { Engine, EngineIdentity, LevelJob, LevelSink } from '../engine.js';
import { SIMULATION_BUDGET, type SimulationBudget } from './budget.js';
import type { FrameMemory } from './frame-memory.js';
import { LevelLoadError, loadLevel } from './load-level.js';
import { encodeMaskPng, encodePng, encodeRgbPng } from './png.js';
import { maskToRgba, type RgbImage } from './render.js';
import { levelSeed, simulateTrial } from './run.js';
import { type Box2dOverrides, checkBox2dOverrides, physicsDigestSource, withBox2dConstants } from './settings.js';

/** Version of the headless engine's behaviour: bump when results can change (part of cache digests). */
export const HEADLESS_ENGINE_VERSION = '1.1.0';

/** Digest of the physics settings, the simulation budget and the engine version (cache keys, engine identity). */
export function headlessDigest(): string {
  return createHash('sha256')
    .update(`${HEADLESS_ENGINE_VERSION}\n${physicsDigestSource()}\n${JSON.stringify(SIMULATION_BUDGET)}`)
    .digest('hex')
    .slice(0, 16);
}

/**
 * The headless engine as it introduces itself (`hello`, traces, cache entries): `where` it runs goes
 * into the free-text description only; kind, version and build are the same wherever it runs.
 */
export function headlessIdentity(where: string): EngineIdentity {
  return {
    kind: 'headless',
    description: `planck.js 1.4.2${where}, evaluator settings ${headlessDigest()}`,
    version: HEADLESS_ENGINE_VERSION,
    build: headlessDigest(),
  };
}

let nextId = 0;

export interface HeadlessEngineOptions {
  /** The simulation budget (budget.ts; tests use small ones). */
  budget?: SimulationBudget;
  /**
   * The exact shortcuts (default true): stop stepping when the world rests (run.ts) and write the
   * capture as a 1-bit PNG (png.ts). False computes every step and writes Unity's 8-bit RGBA layout
   * with sharp, as before them: the same frames, events, verdicts and decoded pixels, for comparing
   * (`npm run bench -- simulate`, test/headless/shortcuts.test.ts). The island solver is chosen per
   * thread (solver.ts `useIslandSolver`; a worker engine without shortcuts uses planck's own).
   */
  shortcuts?: boolean;
  /** Where frame batches get their arrays (in-thread only: the worker passes its recycled buffers; frame-memory.ts). */
  frameMemory?: FrameMemory;
  /**
   * Box2D constants changed for this engine's trials (settings.ts `BOX2D_CONSTANTS`), to see what a
   * physics change does to recorded runs (`sbeval verify --box2d`). planck keeps them as process
   * globals: they are set for each trial's synchronous stepping only, so other engines never see them.
   */
  box2d?: Box2dOverrides;
}

/**
 * The in-process headless engine: planck.js configured as the evaluator (see world.ts, settings.ts).
 * One `run` is one trial; it is synchronous inside (a level takes milliseconds), then encodes the PNGs.
 */
export class HeadlessEngine implements Engine {
  readonly id: string;
  readonly identity: EngineIdentity;
  /** sbeval's own rules: its level faults are verdicts (bridge/engine.ts `ownRules`). */
  readonly ownRules = true;
  private closed = false;
  private readonly budget: SimulationBudget;
  private readonly shortcuts: boolean;
  private readonly frameMemory: FrameMemory | undefined;
  private readonly box2d: Box2dOverrides;
  /** The parsed levels of the last jobs' XML (see `levelOf`). */
  private readonly levels = new Recent<string, Level>(8);

  constructor(id?: string, options: HeadlessEngineOptions = {}) {
    this.budget = options.budget ?? SIMULATION_BUDGET;
    this.shortcuts = options.shortcuts ?? true;
    this.frameMemory = options.frameMemory;
    this.box2d = checkBox2dOverrides(options.box2d ?? {});
    this.id = id ?? `headless-${process.pid}-${nextId++}`;
    this.identity = headlessIdentity('');
  }

  async run(job: LevelJob, sink: LevelSink, signal?: AbortSignal): Promise<void> {
    if (this.closed) throw new SbevalError('simulate', `engine ${this.id} is closed`);
    if (signal?.aborted) throw new SbevalError('simulate', `level ${job.levelId} cancelled`);
    const level = this.levelOf(job.xml);
    let images;
    try {
      const options = { stopWhenResting: this.shortcuts, ...(this.frameMemory ? { frameMemory: this.frameMemory } : {}) };
      const cancelled = () => signal?.aborted === true;
      images = withBox2dConstants(this.box2d, () => simulateTrial(level, levelSeed(job.xml), job.settings, sink, cancelled, this.budget, options));
    } catch (error) {
      if (error instanceof SbevalError) {
        if (error.phase === 'input') throw new LevelLoadError(error.message, { cause: error });
        throw error;
      }
      throw new SbevalError('simulate', `level ${job.levelId}: ${describeError(error)}`, undefined, { cause: error });
    }
    if (signal?.aborted) throw new SbevalError('simulate', `level ${job.levelId} cancelled`);
    if (job.settings.capture && images) {
      if (this.shortcuts) {
        const png = encodeMaskPng(images.image);
        sink.capture(images.raw ? { png, raw: encodeRgbPng(images.raw) } : { png });
      } else {
        const png = await encodePng(maskToRgba(images.image));
        sink.capture(images.raw ? { png, raw: await encodePng(rgbToRgba(images.raw)) } : { png });
      }
    }
  }

  /**
   * The parsed level of `xml`, kept for the level's next trials: the evaluator's up to 3 trials of a
   * level share the text (interleaved with other levels' trials when the engine holds 2 jobs), and the
   * parsed `Level` also keys world.ts's plan cache. Nothing downstream writes to a `Level`.
   */
  private levelOf(xml: string): Level {
    return this.levels.get(xml, loadLevel);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.levels.clear();
  }
}

function rgbToRgba(image: RgbImage): Uint8Array {
  const out = new Uint8Array(image.width * image.height * 4);
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const i = y * image.rowBytes + 1 + x * 3;
      const o = (y * image.width + x) * 4;
      out[o] = image.scanlines[i] as number;
      out[o + 1] = image.scanlines[i + 1] as number;
      out[o + 2] = image.scanlines[i + 2] as number;
      out[o + 3] = 255;
    }
  }
  return out;
}
