import type { LevelEffects } from './actors.js';
import { engineOutcome, type TrialResult } from './pool-trial.js';
import type { LevelRef } from './types.js';

/**
 * The machine's `simulate` and `capture` effects, whoever runs the level: `sbeval run` over the folder
 * (orchestrator/run/effects.ts) and a level XML in hand (./evaluate.ts) differ only in how a trial
 * reaches the pool and where trial 1's image goes.
 */
interface TrialEffectsOptions {
  /** One trial of the level on the pool (./pool-trial.ts). */
  trial(level: LevelRef, trial: number, capture: boolean, avoidEngines: readonly string[], signal: AbortSignal): Promise<TrialResult>;
  /** Hears each trial the bookkeeping counts (not the image's own run). */
  counted?(level: LevelRef, trial: number, result: TrialResult): void;
  /** Trial 1's image, once the trials are done. */
  keepImage(level: LevelRef, png: Uint8Array, raw: Uint8Array | undefined): Promise<void>;
  /** False: no image is asked for, and `capture` keeps none. */
  capture: boolean;
}

type TrialEffects = Pick<LevelEffects, 'simulate' | 'capture'> & {
  /** Drops a failed level's image held for `capture`. */
  forget(level: LevelRef): void;
};

export function trialEffects(options: TrialEffectsOptions): TrialEffects {
  /** Trial 1's image per level, from `simulate` until `capture` keeps it. */
  const images = new Map<string, { png: Uint8Array; raw: Uint8Array | undefined }>();
  return {
    forget: (level) => images.delete(level.id),
    async simulate({ level, trial, capture, avoidEngines }, signal) {
      try {
        const result = await options.trial(level, trial, options.capture && capture, avoidEngines, signal);
        options.counted?.(level, trial, result);
        if (result.png) images.set(level.id, { png: result.png, raw: result.raw });
        return { status: 'ok', cached: false, captured: result.png !== undefined, engineId: result.engineId, ...result.stability };
      } catch (error) {
        return engineOutcome(error);
      }
    },
    async capture({ level, captured, avoidEngines }, signal) {
      if (!options.capture) return { status: 'ok', cached: false };
      let image = captured ? images.get(level.id) : undefined;
      images.delete(level.id);
      if (!image) {
        // The engine sent no image with trial 1: render it in a run of its own (trial-1 order, as the evaluator's image run).
        try {
          const { png, raw } = await options.trial(level, 1, true, avoidEngines, signal);
          if (!png) return { status: 'level-error', reason: 'the engine sent no image' };
          image = { png, raw };
        } catch (error) {
          return engineOutcome(error);
        }
      }
      await options.keepImage(level, image.png, image.raw);
      return { status: 'ok', cached: false };
    },
  };
}
