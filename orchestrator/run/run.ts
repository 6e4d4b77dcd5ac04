import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../../bridge/engine.js';
import { createEngines } from '../../bridge/engines.js';
import { OFFICIAL_RULE } from '../../scoring/stability.js';
import type { RunConfig } from '../config/index.js';
import { SbevalError, describeError } from '../errors.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { resultDir } from '../layout/competition.js';
import type { StageSummary } from '../layout/stage-log.js';
import { provideLevelMachine, startLevel, type LevelInput, type LevelOutcome } from '../machine/index.js';
import { EnginePool, type EngineFactory } from '../pool/index.js';
import { SILENT_PROGRESS, type ProgressSink } from '../progress/types.js';
import { runConvertStage } from '../stages/convert.js';
import { runExtractStage } from '../stages/extract.js';
import { runSimulateStage, settingsDigest } from '../stages/simulate.js';
import { failureSection, sortRows, trialRow, trialsCsv, type SimilarityLookup, type TrialRow } from './accounting.js';
import { createRunEffects, readValidCache, type CachedLevel } from './effects.js';
import { charactersFound, planLevels, type LevelPaths, type PlannedLevel } from './levels.js';
import { RunLog } from './run-log.js';

/**
 * `sbeval run`: a whole competition from raw responses (or submissions) to `result/`, headless,
 * resumable. Stages in order, each skipping work already done:
 *
 * 1. generate (when submissions are configured)      — H6's generation, per model
 * 2. extract, convert                                 — H1's folder stages (official logs, mtime skip)
 * 3. levels: one XState machine per trial             — extract/convert verdicts, simulate trial k of ≤ 3
 *    on the engine pool, capture, commit (a level finished by an earlier run is skipped: its cached
 *    result is valid for its XML and settings and its image exists)
 * 4. stability JSON per character                     — H2's simulate stage writes them from the caches
 * 5. similarity, diversity                            — H4's stages (need a similarity model)
 * 6. score                                            — H3's scoring (needs similarity)
 * 7. result/trials.csv and the failure section of the report.
 *
 * State lives in `<root>/.sbeval/` (hidden from the official scripts), logs in `<root>/logs/`.
 */
export interface RunOptions {
  config: RunConfig;
  progress?: ProgressSink;
  signal?: AbortSignal;
  /** Replaces the engines of `config.engine` (tests: engines that die, stall, answer garbage). */
  engineFactory?: EngineFactory;
  now?: () => Date;
}

export type StageStatus = 'done' | 'skipped' | 'unavailable' | 'failed';

export interface RunStageReport {
  stage: string;
  status: StageStatus;
  detail: string;
  summary?: StageSummary;
}

export interface RunReport {
  root: string;
  runLog: string;
  stages: RunStageReport[];
  trials: TrialRow[];
  trialsCsv: string;
  levels: { total: number; simulated: number; cached: number; failed: number; retries: number };
  cancelled: boolean;
}

const STATE_TIMEOUT_FLOOR_MS = 60_000;

/** One competition folder: the root, or `<root>/<model>/` per model in multi-model runs. */
interface Competition {
  root: string;
  model: string | undefined;
}

export async function runCompetition(options: RunOptions): Promise<RunReport> {
  const { config } = options;
  const progress = options.progress ?? SILENT_PROGRESS;
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const log = new RunLog(config.root, startedAt, now);
  const stages: RunStageReport[] = [];
  const report: RunReport = {
    root: config.root,
    runLog: log.file,
    stages,
    trials: [],
    trialsCsv: join(resultDir(config.root), 'trials.csv'),
    levels: { total: 0, simulated: 0, cached: 0, failed: 0, retries: 0 },
    cancelled: false,
  };
  log.write({ type: 'run-start', root: config.root, config: { ...config, root: undefined }, node: process.version });

  let pool: EnginePool | undefined;
  const outcomes: LevelOutcome[] = [];
  try {
    const competitions: Competition[] = config.models.length > 1 ? config.models.map((m) => ({ root: join(config.root, m.folder), model: m.folder })) : [{ root: config.root, model: undefined }];

    for (const competition of competitions) {
      throwIfCancelled(options.signal);
      const filter = { teams: config.teams, characters: config.sources.characters === 'default' ? undefined : config.characters };
      const stageDone = (stage: string, summary: StageSummary) => {
        stages.push({ stage, status: 'done', detail: `${summary.succeeded} ok, ${summary.failed} failed, ${summary.skipped} already done`, summary });
        log.write({ type: 'stage-end', stage, model: competition.model, succeeded: summary.succeeded, failed: summary.failed, skipped: summary.skipped, reasons: Object.fromEntries(summary.reasons) });
      };
      if (!existsSync(competition.root)) continue;
      log.write({ type: 'stage-start', stage: 'extract', model: competition.model });
      stageDone('extract', await runExtractStage({ root: competition.root, filter, prefix: config.prefix, now }, progress));
      throwIfCancelled(options.signal);
      log.write({ type: 'stage-start', stage: 'convert', model: competition.model });
      stageDone('convert', await runConvertStage({ root: competition.root, filter, prefix: config.prefix, now }, progress));
      throwIfCancelled(options.signal);

      const characters = config.sources.characters === 'default' ? charactersFound(competition.root, config.teams) : config.characters;
      const planned = planLevels(competition.root, { teams: config.teams, characters: characters.length > 0 ? characters : config.characters, trials: config.trials, model: competition.model });
      const digest = settingsDigest({ engine: config.engine, trials: config.simulationTrials, damage: config.damage, rule: OFFICIAL_RULE, rawImages: false });

      // Levels an earlier run finished are not run again.
      const todo: PlannedLevel[] = [];
      let cachedHere = 0;
      for (const level of planned) {
        const cached = await readValidCache(competition.root, level.ref.team, level.ref.character, level.ref.base, level.paths.level, level.paths.image, digest);
        if (cached) {
          outcomes.push(outcomeFromCache(level, cached));
          log.write({ type: 'level-cached', level: level.ref.id, ok: cached.outcome.ok });
          cachedHere += 1;
        } else todo.push(level);
      }
      report.levels.total += planned.length;
      report.levels.cached += cachedHere;

      const toSimulate = todo.filter((l) => existsSync(l.paths.level)).length;
      progress.start('simulate', toSimulate + cachedHere);
      for (let i = 0; i < cachedHere; i += 1) progress.tick('simulate', 'skipped');
      log.write({ type: 'stage-start', stage: 'levels', model: competition.model, planned: planned.length, cached: planned.length - todo.length, toSimulate });
      if (toSimulate > 0) pool ??= await createPool(config, options.engineFactory, log, progress);
      const paths = new Map<string, LevelPaths>(todo.map((l) => [l.ref.id, l.paths]));
      const effects = createRunEffects({ root: competition.root, prefix: config.prefix, pool: pool as EnginePool, digest, damage: config.damage, paths, startedAt: startedAt.getTime(), traces: config.traces });
      const machine = provideLevelMachine(effects);
      const inspect = log.inspector();
      const limits: LevelInput['limits'] = {
        maxTrials: config.simulationTrials,
        maxEngineRetries: config.limits.engineRetries,
        timeouts: {
          extract: STATE_TIMEOUT_FLOOR_MS,
          convert: STATE_TIMEOUT_FLOOR_MS,
          // A trial may wait for a free engine behind others: the state bound covers the queue too.
          simulate: Math.max(STATE_TIMEOUT_FLOOR_MS, config.limits.trialMs * 4),
          capture: Math.max(STATE_TIMEOUT_FLOOR_MS, config.limits.trialMs * 4),
          commit: STATE_TIMEOUT_FLOOR_MS,
        },
      };

      // Admission: a bounded number of levels in flight keeps memory flat; the pool queues their trials.
      let next = 0;
      const inFlight = Math.max(4, (pool?.size ?? 1) * 4);
      const worker = async () => {
        for (;;) {
          if (options.signal?.aborted) return;
          const level = todo[next++];
          if (!level) return;
          const willSimulate = existsSync(level.paths.level);
          const outcome = await startLevel(machine, { level: level.ref, limits }, { inspect, signal: options.signal });
          outcomes.push(outcome);
          report.levels.retries += outcome.retries.length;
          if (outcome.failure?.kind === 'level' && outcome.failure.stage === 'simulate') await effects.recordLevelError(level.ref, outcome.failure.reason);
          if (outcome.status === 'failed') report.levels.failed += 1;
          if (willSimulate) {
            report.levels.simulated += 1;
            const label = level.ref.id;
            if (outcome.status === 'done') progress.tick('simulate', 'ok', label);
            else progress.tick('simulate', 'failed', label, outcome.failure?.reason);
          }
          for (const retry of outcome.retries) progress.note('simulate', `${level.ref.id}: retried ${retry.stage} of trial ${retry.trial} on another engine (${retry.reason})`);
          log.write({ type: outcome.status === 'done' ? 'level-done' : 'level-failed', level: level.ref.id, outcome: { ...outcome, level: undefined } });
        }
      };
      await Promise.all(Array.from({ length: Math.min(inFlight, Math.max(1, todo.length)) }, () => worker()));
      progress.end('simulate');
      throwIfCancelled(options.signal);

      // The evaluator's per-character stability files, from the caches the machines committed.
      const summary = await runSimulateStage({ root: competition.root, filter, engines: [], trials: config.simulationTrials, damage: config.damage, engine: config.engine }, SILENT_PROGRESS);
      stages.push({ stage: 'stability', status: 'done', detail: `${summary.characters.length} character file(s) written` });
      log.write({ type: 'stage-end', stage: 'stability', model: competition.model, characters: summary.characters });
    }

    // Failure accounting.
    const similarity: SimilarityLookup = undefined;
    report.trials = sortRows(outcomes.map((o) => trialRow(o, similarity)));
    await writeFileAtomic(report.trialsCsv, trialsCsv(report.trials));
    const section = failureSection(report.trials);
    await writeFileAtomic(join(resultDir(config.root), 'failures.md'), `## ${section.title}\n\n${section.markdown}\n`);
    stages.push({ stage: 'accounting', status: 'done', detail: `${report.trials.length} trials in ${report.trialsCsv}` });
  } catch (error) {
    if (options.signal?.aborted) {
      report.cancelled = true;
      log.write({ type: 'run-cancelled', reason: describeError(options.signal.reason ?? error) });
    } else {
      log.write({ type: 'run-error', error: describeError(error) });
      throw error;
    }
  } finally {
    await pool?.close();
    log.write({ type: 'run-end', levels: report.levels, cancelled: report.cancelled, stages: stages.map(({ stage, status, detail }) => ({ stage, status, detail })) });
    log.close();
  }
  return report;
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new SbevalError('simulate', `run cancelled: ${describeError(signal.reason ?? 'aborted')}`);
}

function outcomeFromCache(level: PlannedLevel, cached: CachedLevel): LevelOutcome {
  const base = { level: level.ref, trials: [], retries: [], cached: ['extract', 'convert', 'simulate', 'capture', 'commit'] as LevelOutcome['cached'] };
  if (cached.outcome.ok) {
    const { score, startingObjects, movingObjects, trialsRun } = cached.outcome;
    return { ...base, status: 'done', stageReached: 'image', stability: { score, startingObjects, movingObjects, trialsRun }, failure: undefined };
  }
  return { ...base, status: 'failed', stageReached: 'level', stability: undefined, failure: { stage: 'simulate', kind: 'level', reason: cached.outcome.reason } };
}

async function createPool(config: RunConfig, injected: EngineFactory | undefined, log: RunLog, progress: ProgressSink): Promise<EnginePool> {
  const factory: EngineFactory =
    injected ??
    (async (slot, generation) => {
      const [engine] = await createEngines(config.engine, 1);
      if (!engine) throw new SbevalError('launch', `no engine for slot ${slot} (generation ${generation})`);
      return engine as Engine;
    });
  return EnginePool.create({
    size: config.workers,
    factory,
    stallMs: config.limits.stallMs,
    jobTimeoutMs: config.limits.trialMs,
    maxAttempts: 1,
    onEvent: (event) => {
      log.pool(event);
      if (event.type === 'engine-retired') progress.note('simulate', `engine ${event.engineId} retired: ${event.reason}`);
    },
  });
}
