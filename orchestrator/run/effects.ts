import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DamageFormula } from '../../bridge/engine.js';
import { TraceRecorder } from '../../bridge/trace.js';
import { CODE_NOT_FOUND, extractCode } from '../../levels/extract.js';
import { convertProgram } from '../../levels/pipeline.js';
import { OFFICIAL_RULE, OFFICIAL_WINDOW_STEPS } from '../../scoring/stability.js';
import { stageDir } from '../layout/competition.js';
import {
  asTrialStability,
  type CommitInput,
  type LevelEffects,
  type LevelRef,
  runPoolTrial,
  type StepInput,
  type StepOutput,
  type TrialSettings,
  trialEffects,
} from '../machine/index.js';
import type { EnginePool } from '../pool/index.js';
import { NEVER_GENERATED } from '../report/fates.js';
import type { LevelResults } from '../stages/level-results.js';
import { type LevelPaths, levelFiles, loggedLevel } from './levels.js';

/**
 * The effects of a level machine over a competition folder and an engine pool:
 * - extract/convert: the folder stages (H1's `runExtractStage`/`runConvertStage`) have already run
 *   over the whole folder; these report the trial's fate from their output (a level XML counts as
 *   extracted and converted, so a folder may start at `intermediate` or `levels`), and when there is
 *   none, the official reason from the same pure functions (`extractCode`, `convertProgram`);
 * - simulate and capture: the machine's own (orchestrator/machine/trial-effects.ts), one trial on the
 *   pool each (`maxAttempts: 1`: the machine decides about retries), with the trial's trace when traces
 *   are on; capture writes trial 1's image to the folder;
 * - commit: writes the level's result in the simulate stage's cache format
 *   (`<root>/.sbeval/simulate/<team>/<C>/<name>.json`), so `sbeval simulate` and a resumed `sbeval run`
 *   both see the level as done and never run it again.
 * The image and the cache entry are kept as `sbeval simulate` keeps them (stages/level-results.ts), and
 * every trial's engine is reported to the same ledger: when the pool discredits an engine, what it gave
 * is removed and the level runs again (orchestrator/pool/result-ledger.ts).
 */
interface RunEffectsOptions {
  root: string;
  prefix: string;
  pool: EnginePool;
  /** Where the images and cache entries go, and the ledger of the engines that gave them. */
  results: LevelResults;
  damage: DamageFormula;
  windowSteps?: number;
  paths: ReadonlyMap<string, LevelPaths>;
  /** When this run started: outputs older than that were there before (a resumed run). */
  startedAt: number;
  /** Record every trial to `<root>/<team>/traces/<C>/<name>.trial<k>.sbtrace` (bridge/trace.ts format). */
  traces?: boolean;
  /** Called with every image written (its PNG bytes): `sbeval run` starts its similarity on them (orchestrator/similarity/prefetch.ts). */
  onImage?: (png: Uint8Array) => void;
}

/**
 * A trial's trace: `<root>/<team>/traces/<C>/<name>.trial<k>.sbtrace` (the official trial-number parse,
 * text after the last `_` up to the first `.`, still reads the trial from it).
 */
function tracePath(root: string, level: LevelRef, trial: number): string {
  return join(stageDir(root, level.team, 'traces', level.character), `${level.base}.trial${trial}.sbtrace`);
}

const NOT_FOUND = (stage: string, log: string) => `the ${stage} stage wrote no file (see logs/${log}_log_*.txt)`;

export type RunEffects = LevelEffects & { recordLevelError(level: LevelRef, reason: string): Promise<void> };

/** What the effects of one run share: their options, the level texts in flight, the trials. */
interface EffectsState {
  options: RunEffectsOptions;
  windowSteps: number;
  trials: ReturnType<typeof trialEffects>;
  /** Each level's XML, read once, until the level is committed. */
  xmls: Map<string, string>;
}

function pathsOf(state: EffectsState, id: string): LevelPaths {
  const paths = state.options.paths.get(id);
  if (!paths) throw new Error(`no paths planned for level ${id}`);
  return paths;
}

function existedBefore(state: EffectsState, path: string): boolean {
  return statSync(path).mtimeMs < state.options.startedAt;
}

async function xmlOf(state: EffectsState, id: string): Promise<string> {
  let xml = state.xmls.get(id);
  if (xml === undefined) {
    xml = await readFile(pathsOf(state, id).level, 'utf8');
    state.xmls.set(id, xml);
  }
  return xml;
}

/** A trial's trace, when traces are on: no time in it and no elapsed time in its summary, so a resumed run writes the same bytes. */
function traceTee(state: EffectsState, level: LevelRef, trial: number): TrialSettings['tee'] {
  if (!state.options.traces) return undefined;
  const path = tracePath(state.options.root, level, trial);
  return (job, engine) => {
    const recorder = new TraceRecorder(path, { job, engine: engine.identity, recordedAt: null });
    return { sink: recorder, keep: () => recorder.finish({ elapsedMs: 0 }), drop: () => recorder.discard() };
  };
}

/** Runs one trial of a level on the pool (the machine decides about retries: one attempt); only the last attempt's trace is kept. */
async function runTrial(state: EffectsState, level: LevelRef, trial: number, capture: boolean, avoidEngines: readonly string[], signal: AbortSignal) {
  const xml = await xmlOf(state, level.id);
  const tee = traceTee(state, level, trial);
  const settings: TrialSettings = {
    damage: state.options.damage,
    rule: OFFICIAL_RULE,
    windowSteps: state.windowSteps,
    rawImages: false,
    maxAttempts: 1,
    ...(tee ? { tee } : {}),
  };
  const result = await runPoolTrial(state.options.pool, { levelId: level.id, xml, trial, capture, avoidEngines, signal }, settings);
  state.options.results.ledger.used(level.id, result.engineSerial);
  return result;
}

async function extractStep(state: EffectsState, { level }: StepInput): Promise<StepOutput> {
  const paths = pathsOf(state, level.id);
  if (existsSync(paths.intermediate)) return { status: 'ok', cached: existedBefore(state, paths.intermediate) };
  // A folder that starts at `levels` (no responses kept): the level is what counts, as for `sbeval simulate`.
  if (existsSync(paths.level)) return { status: 'ok', cached: true };
  if (paths.raw === undefined || !existsSync(paths.raw)) return { status: 'failed', reason: NEVER_GENERATED, missingInput: true };
  const code = extractCode(await readFile(paths.raw, 'utf8'), state.options.prefix);
  return { status: 'failed', reason: code === null ? CODE_NOT_FOUND : NOT_FOUND('extract', 'intermediate') };
}

async function convertStep(state: EffectsState, { level }: StepInput): Promise<StepOutput> {
  const paths = pathsOf(state, level.id);
  if (existsSync(paths.level)) return { status: 'ok', cached: existedBefore(state, paths.level) };
  const result = convertProgram(await readFile(paths.intermediate, 'utf8'), { prefix: state.options.prefix });
  return { status: 'failed', reason: result.ok ? NOT_FOUND('convert', 'levels') : result.reason };
}

async function writeImage(state: EffectsState, level: LevelRef, png: Uint8Array): Promise<void> {
  await state.options.results.keepImages(loggedLevel(level), levelFiles(state.options.root, level, pathsOf(state, level.id)), png);
  state.options.onImage?.(png);
}

async function commitStep(state: EffectsState, { level, stability, trials }: CommitInput): Promise<StepOutput> {
  const files = levelFiles(state.options.root, level, pathsOf(state, level.id));
  await state.options.results.keepResult(loggedLevel(level), files, await xmlOf(state, level.id), {
    ok: true,
    ...stability,
    trials: trials.map(asTrialStability),
  });
  state.xmls.delete(level.id);
  return { status: 'ok', cached: false };
}

/**
 * A level the engine cannot load fails the same way every time: kept like the simulate stage keeps it.
 * A storage fault while keeping it is thrown: it stops the run (orchestrator/run/fault.ts).
 */
async function recordLevelError(state: EffectsState, level: LevelRef, reason: string): Promise<void> {
  try {
    await state.options.results.keepLevelError(
      loggedLevel(level),
      levelFiles(state.options.root, level, pathsOf(state, level.id)),
      await xmlOf(state, level.id),
      reason,
    );
  } finally {
    state.xmls.delete(level.id);
    state.trials.forget(level);
  }
}

export function createRunEffects(options: RunEffectsOptions): RunEffects {
  const state: EffectsState = {
    options,
    windowSteps: options.windowSteps ?? OFFICIAL_WINDOW_STEPS,
    trials: trialEffects({
      capture: true,
      trial: (level, trial, capture, avoidEngines, signal) => runTrial(state, level, trial, capture, avoidEngines, signal),
      keepImage: (level, png) => writeImage(state, level, png),
    }),
    xmls: new Map(),
  };
  return {
    extract: (input) => extractStep(state, input),
    convert: (input) => convertStep(state, input),
    simulate: (input, signal) => state.trials.simulate(input, signal),
    capture: (input, signal) => state.trials.capture(input, signal),
    commit: (input) => commitStep(state, input),
    recordLevelError: (level, reason) => recordLevelError(state, level, reason),
  };
}
