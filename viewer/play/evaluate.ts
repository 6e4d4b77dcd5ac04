import { DEFAULT_SIMULATION, type SimulationSettings } from '../../bridge/engine.js';
import type { BodyInfo, FrameBatch, SimEvent } from '../../bridge/frames.js';
import { SimulationBudgetError } from '../../bridge/headless/budget.js';
import { loadLevel } from '../../bridge/headless/load-level.js';
import type { MaskImage } from '../../bridge/headless/render.js';
import { levelSeed, simulateTrial } from '../../bridge/headless/run.js';
import { describeError } from '../../core/errors.js';
import { invariant } from '../../core/invariant.js';
import { AB_DROP, CODE_NOT_FOUND, DROP_BLOCK } from '../../levels/extract.js';
import { convertProgram, responseToLevel } from '../../levels/pipeline.js';
import {
  combineTrials,
  type LevelStability,
  needsAnotherTrial,
  OFFICIAL_RULE,
  OFFICIAL_TRIALS,
  OFFICIAL_WINDOW_STEPS,
  StabilityTracker,
  type TrialStability,
} from '../../scoring/stability.js';
import type { ViewerMeta } from '../page-data.js';
import { type TrialData, viewerFrames, viewerMeta } from '../trial.js';

/**
 * The playground's evaluation, in the page (viewer/play/page/): what the user pasted → the official
 * extraction and conversion with their reasons (levels/pipeline.ts) → the evaluator's trials on the
 * headless engine's own trial function (bridge/headless/run.ts, planck and its WebAssembly kernel in
 * the bundle) → stability by the evaluator's bookkeeping (scoring/stability.ts: another trial while
 * the best score is below 1.0, score = best, counts from the last trial) → the viewer's meta and
 * frames for trial 1 and its black-on-white image. No Node API, no second copy of a rule: the same
 * functions `sbeval level` reaches through its engine pool.
 */

/** What a pasted text is: an LLM response (extraction, then conversion), a drop program (conversion) or a level XML. */
type InputKind = 'response' | 'program' | 'xml';

/** The kind a text most likely is: XML starts with `<`; a response has a fenced block (``` or ~~~) or prose; a program is only calls. */
export function guessKind(text: string): InputKind {
  const trimmed = text.trim();
  if (trimmed.startsWith('<')) return 'xml';
  const lines = trimmed.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  const calls = lines.filter((line) => /^\s*(drop_block|ab_drop)\s*\(/i.test(line));
  return lines.length > 0 && calls.length === lines.length ? 'program' : 'response';
}

/** The function name of the drop calls, as `sbeval level` picks it: `ab_drop` when the text calls only that (2023), else `drop_block`. */
function prefixOf(text: string): string {
  return text.includes(`${AB_DROP}(`) && !text.includes(`${DROP_BLOCK}(`) ? AB_DROP : DROP_BLOCK;
}

/** A level XML, or the stage that refused the text and its reason (the official wording for extraction and conversion). */
type PreparedLevel = { ok: true; xml: string; code?: string } | { ok: false; stage: 'extract' | 'convert' | 'load'; reason: string };

export function prepareLevel(text: string, kind: InputKind = guessKind(text)): PreparedLevel {
  if (kind === 'xml') {
    try {
      loadLevel(text);
      return { ok: true, xml: text };
    } catch (error) {
      return { ok: false, stage: 'load', reason: describeError(error) };
    }
  }
  const options = { prefix: prefixOf(text) };
  if (kind === 'response') {
    const result = responseToLevel(text, options);
    if (!result.ok) return { ok: false, stage: result.stage, reason: result.reason };
    return { ok: true, xml: result.xml, code: result.code };
  }
  const result = convertProgram(text, options);
  if (!result.ok) return { ok: false, stage: 'convert', reason: result.reason };
  // A program without one drop call has no level: the extractor's wording (`sbeval level` says the same).
  if (result.calls.length === 0) return { ok: false, stage: 'extract', reason: CODE_NOT_FOUND };
  return { ok: true, xml: result.xml, code: text };
}

/** The level's evaluation, or the reason it has none (a level the engine cannot load, over the simulation budget). */
type PlayEvaluation =
  | {
      ok: true;
      stability: LevelStability;
      trials: TrialStability[];
      /** Trial 1, every frame kept: the viewer's panel shows it. */
      trial: TrialData;
      meta: ViewerMeta;
      frames: Uint8Array;
      /** Trial 1's black-on-white image (bridge/headless/render.ts). */
      image: MaskImage;
    }
  | { ok: false; reason: string };

interface RunTrial {
  stability: TrialStability;
  bodies: BodyInfo[];
  dt: number;
  frames: FrameBatch[];
  events: SimEvent[];
  image: MaskImage | undefined;
  settings: SimulationSettings;
}

/** One trial: the stream into a stability tracker (and kept whole for trial 1), as the pool's trial does (orchestrator/machine/pool-trial.ts). */
function runTrial(xml: string, trial: number): RunTrial {
  const level = loadLevel(xml);
  // Trial 1 renders the image (orchestrator/machine/evaluate.ts), the later ones only count.
  const settings: SimulationSettings = { ...DEFAULT_SIMULATION, windowSteps: OFFICIAL_WINDOW_STEPS, trial, capture: trial === 1 };
  const kept: { bodies: BodyInfo[]; dt: number; frames: FrameBatch[]; events: SimEvent[] } = { bodies: [], dt: 0, frames: [], events: [] };
  let tracker: StabilityTracker | undefined;
  const images = simulateTrial(level, levelSeed(xml), settings, {
    loaded(bodies, dt) {
      kept.bodies = bodies;
      kept.dt = dt;
      tracker = new StabilityTracker(bodies, settings.windowSteps, OFFICIAL_RULE);
    },
    frames(batch) {
      tracker?.frames(batch);
      kept.frames.push(batch);
    },
    events(events) {
      tracker?.events(events);
      for (const e of events) kept.events.push(e);
    },
  });
  invariant(tracker, 'the headless engine sends its body table before its frames');
  return { stability: tracker.result(), ...kept, image: images?.image, settings };
}

/** Runs the evaluator's trials of a level XML (up to `maxTrials`, stop at 1.0) and builds what the page shows. */
export function evaluateXml(levelId: string, xml: string, maxTrials = OFFICIAL_TRIALS): PlayEvaluation {
  const runs: RunTrial[] = [];
  try {
    while (
      needsAnotherTrial(
        runs.map((r) => r.stability),
        maxTrials,
      )
    )
      runs.push(runTrial(xml, runs.length + 1));
  } catch (error) {
    if (error instanceof SimulationBudgetError) return { ok: false, reason: `${error.message} (the cost reached ${error.cost} at step ${error.step})` };
    return { ok: false, reason: describeError(error) };
  }
  const first = runs[0]!;
  if (!first.image) return { ok: false, reason: 'the engine drew no image' };
  const trial: TrialData = {
    levelId,
    dt: first.dt,
    bodies: first.bodies,
    frames: first.frames,
    events: first.events,
    settings: first.settings,
    xml,
    capture: undefined,
    engine: undefined,
    source: 'simulated in this page',
  };
  const trials = runs.map((r) => r.stability);
  return { ok: true, stability: combineTrials(trials), trials, trial, meta: viewerMeta(trial), frames: viewerFrames(trial), image: first.image };
}
