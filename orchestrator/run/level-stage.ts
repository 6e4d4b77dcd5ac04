import { existsSync } from 'node:fs';
import { storageFault } from '../../core/storage.js';
import { type CompetitionFolder, stageFilter } from '../config/index.js';
import { StageLog } from '../layout/stage-log.js';
import { type LevelInput, type LevelRef, provideLevelMachine, startLevel } from '../machine/index.js';
import { type EnginePool, NOT_KEPT_REASON } from '../pool/index.js';
import { type EngineIdentityCheck, simulationIdentity } from '../stages/level-cache.js';
import { LevelResults, validCache } from '../stages/level-results.js';
import type { RunContext } from './context.js';
import { createRunEffects, type RunEffects } from './effects.js';
import { accountedLevels, type LevelPaths, levelFiles, loggedLevel, type PlannedLevel } from './levels.js';
import { observeLevel, outcomeFromCache } from './observe.js';
import { createPool, engineIdentityCheck } from './pool.js';

/**
 * The levels of one competition folder: one XState machine per trial of the work that is not done yet
 * (extract and convert verdicts, simulate trial k of ≤ 3 on the engine pool, capture, commit). A level an
 * earlier run (or `sbeval simulate`) finished — its cached result is valid for its XML and settings
 * and its image exists — is not run again. Trials start from whatever stage the folder has: a level
 * XML is simulated whether or not its response is there. A level whose trials ran on an engine the
 * pool later discredited (retired for a lie) is not cached and runs again, up to `RUNS_PER_LEVEL`
 * times in all; then it stays unfinished (orchestrator/pool/result-ledger.ts).
 */
const STATE_TIMEOUT_FLOOR_MS = 60_000;

const wanted = (list: readonly string[] | undefined, name: string) => !list || list.length === 0 || list.includes(name);

/**
 * Plans every trial of the competition (every team folder × its letters × 1..T: the rows of
 * `result/trials.csv`) and works on the part `--team`/`--chars` select; the others are read as they are
 * (run/observe.ts). Returns the levels worked on.
 */
export async function levelStage(ctx: RunContext, competition: CompetitionFolder): Promise<PlannedLevel[]> {
  const { settings, report } = ctx;
  const planned = accountedLevels(settings, competition);
  const filter = stageFilter(settings);
  const work = planned.filter((l) => wanted(filter.teams, l.ref.team) && wanted(filter.characters, l.ref.character));
  const digest = simulationIdentity(settings).digest;
  const engine = await engineIdentityCheck(ctx, work);
  const todo = await skipFinished(ctx, competition, work, digest, engine);
  const refused = engine?.summary();
  if (refused) ctx.progress.note('simulate', refused);
  const inWork = new Set(work);
  const outside = planned.filter((l) => !inWork.has(l));
  for (const level of outside) ctx.outcomes.push(await observeLevel(competition.root, level, settings.prefix, digest));
  report.levels.total += planned.length;
  report.levels.beyondT += planned.filter((l) => Number.isFinite(l.ref.trial) && l.ref.trial > settings.trials).length;
  report.levels.outside += outside.length;
  const cached = work.length - todo.length;
  report.levels.cached += cached;

  const toSimulate = todo.filter((l) => existsSync(l.paths.level)).length;
  ctx.progress.start('simulate', toSimulate + cached);
  for (let i = 0; i < cached; i += 1) ctx.progress.tick('simulate', 'skipped');
  ctx.log.write({ type: 'stage-start', stage: 'levels', model: competition.model, planned: planned.length, outside: outside.length, cached, toSimulate });
  if (toSimulate > 0) ctx.pool ??= await createPool(settings, ctx.options.engineFactory, ctx.log, ctx.progress, (message) => ctx.warn('simulate', message));
  await runLevels(ctx, competition, todo, digest);
  // Levels a stop (Ctrl-C, a storage fault) kept from starting: those whose fate the folder already holds
  // (no code, a program that does not convert: the extract and convert rows count them failed) are failed
  // here too, read as they are (observe.ts); only the others are not run. So the summary adds up.
  const finished = new Set(ctx.outcomes.map((o) => o.level.id));
  for (const level of todo.filter((l) => !finished.has(l.ref.id))) {
    const observed = await observeLevel(competition.root, level, settings.prefix, digest);
    if (observed.failure?.kind === 'level') {
      ctx.outcomes.push(observed);
      report.levels.failed += 1;
    } else report.levels.notRun += 1;
  }
  ctx.progress.end('simulate');
  ctx.log.write({ type: 'stage-end', stage: 'levels', model: competition.model });
  return work;
}

/** Levels an earlier run finished become outcomes at once; the rest are returned to run. */
async function skipFinished(
  ctx: RunContext,
  competition: CompetitionFolder,
  planned: readonly PlannedLevel[],
  digest: string,
  engine: EngineIdentityCheck | undefined,
): Promise<PlannedLevel[]> {
  const todo: PlannedLevel[] = [];
  for (const level of planned) {
    const entry = validCache(levelFiles(competition.root, level.ref, level.paths), digest, false, engine);
    if (entry) {
      ctx.outcomes.push(outcomeFromCache(level, entry));
      ctx.log.write({ type: 'level-cached', level: level.ref.id, ok: entry.outcome.ok });
    } else todo.push(level);
  }
  return todo;
}

function machineLimits(ctx: RunContext): LevelInput['limits'] {
  const { settings } = ctx;
  return {
    maxTrials: settings.simulationTrials,
    maxEngineRetries: settings.limits.engineRetries,
    timeouts: {
      extract: STATE_TIMEOUT_FLOOR_MS,
      convert: STATE_TIMEOUT_FLOOR_MS,
      // A trial may wait for a free engine behind others: the state bound covers the queue too.
      simulate: Math.max(STATE_TIMEOUT_FLOOR_MS, settings.limits.trialMs * 4),
      capture: Math.max(STATE_TIMEOUT_FLOOR_MS, settings.limits.trialMs * 4),
      commit: STATE_TIMEOUT_FLOOR_MS,
    },
  };
}

/**
 * The machines of `todo`, then again those whose results came from an engine the pool discredited
 * meanwhile (stages/level-results.ts `runWithReruns`: their outcomes are replaced; the ledger already
 * removed their files), a bounded number of times: a level still tainted after that is unfinished (the
 * next run does it). The official stability log is the one `sbeval simulate` writes.
 */
async function runLevels(ctx: RunContext, competition: CompetitionFolder, todo: readonly PlannedLevel[], digest: string): Promise<void> {
  const stabilityLog = new StageLog(competition.root, 'stability', ctx.now(), ctx.now);
  const results = new LevelResults(ctx.pool, stabilityLog, ctx.progress, digest);
  const effects = levelEffects(ctx, competition, todo, results);
  try {
    await results.runWithReruns(
      todo,
      (l) => loggedLevel(l.ref),
      (pass) => runMachines(ctx, pass, effects, results),
      {
        again: (levels, message) => {
          for (const l of levels) replaceOutcome(ctx, l.ref.id, 'forget');
          ctx.warn('simulate', message);
          ctx.progress.start('simulate', levels.length);
        },
        notKept: (levels, message) => {
          for (const l of levels) replaceOutcome(ctx, l.ref.id, 'unfinished');
          ctx.warn('simulate', message);
        },
      },
    );
  } finally {
    results.close();
  }
}

/**
 * A level's outcome whose results came from a discredited engine: forgotten before it runs again (the
 * counts with it), or kept as unfinished when it will not run again in this run.
 */
function replaceOutcome(ctx: RunContext, id: string, how: 'forget' | 'unfinished'): void {
  const index = ctx.outcomes.findIndex((o) => o.level.id === id);
  const outcome = ctx.outcomes[index];
  if (!outcome) return;
  const levels = ctx.report.levels;
  if (how === 'forget') {
    ctx.outcomes.splice(index, 1);
    levels.simulated -= 1;
    levels.retries -= outcome.retries.length;
    if (outcome.status === 'failed') levels.failed -= 1;
    return;
  }
  if (outcome.status !== 'failed') levels.failed += 1;
  ctx.outcomes[index] = {
    ...outcome,
    status: 'failed',
    stageReached: 'level',
    stability: undefined,
    failure: { stage: 'simulate', kind: 'engine', reason: NOT_KEPT_REASON },
  };
}

function levelEffects(ctx: RunContext, competition: CompetitionFolder, todo: readonly PlannedLevel[], results: LevelResults): RunEffects {
  const { settings } = ctx;
  return createRunEffects({
    root: competition.root,
    prefix: settings.prefix,
    pool: ctx.pool as EnginePool, // only machines with a level XML reach `simulating`, and then a pool exists
    results,
    damage: settings.damage,
    paths: new Map<string, LevelPaths>(todo.map((l) => [l.ref.id, l.paths])),
    startedAt: ctx.startedAt.getTime(),
    traces: settings.traces,
    ...(ctx.similarityPrefetch ? { onImage: (png: Uint8Array) => ctx.similarityPrefetch!.add(png) } : {}),
  });
}

/** Keeps a level's error like simulate keeps it; false after a storage fault, which the latch turns into the run's end. */
async function keptLevelError(ctx: RunContext, effects: RunEffects, level: LevelRef, reason: string): Promise<boolean> {
  try {
    await effects.recordLevelError(level, reason);
    return true;
  } catch (error) {
    const fault = storageFault(error);
    if (!fault) throw error;
    ctx.latch.report(fault);
    return false;
  }
}

/** One machine per level, a bounded number in flight (memory stays flat; the pool queues their trials). */
async function runMachines(ctx: RunContext, todo: readonly PlannedLevel[], effects: RunEffects, results: LevelResults): Promise<void> {
  const { report, progress, options } = ctx;
  const machine = provideLevelMachine(ctx.latch.guard(effects));
  const inspect = ctx.log.inspector();
  const limits = machineLimits(ctx);
  let next = 0;
  const worker = async () => {
    for (;;) {
      if (options.signal?.aborted) return;
      const level = todo[next++];
      if (!level) return;
      const willSimulate = existsSync(level.paths.level);
      const outcome = await startLevel(machine, { level: level.ref, limits }, { inspect, signal: options.signal });
      if (outcome.failure?.kind === 'cancelled') return; // not an outcome: the next run does this level
      ctx.outcomes.push(outcome);
      report.levels.retries += outcome.retries.length;
      if (outcome.failure?.kind === 'level' && outcome.failure.stage === 'simulate' && !(await keptLevelError(ctx, effects, level.ref, outcome.failure.reason)))
        return;
      if (outcome.status === 'failed') report.levels.failed += 1;
      if (willSimulate) {
        report.levels.simulated += 1;
        results.verdict(loggedLevel(level.ref), outcome.status === 'done' ? { ok: true } : { ok: false, reason: outcome.failure?.reason ?? 'failed' });
      }
      for (const retry of outcome.retries)
        progress.note('simulate', `${level.ref.id}: ${retry.stage} of trial ${retry.trial} retried on another engine (${retry.reason})`);
      ctx.log.write({ type: outcome.status === 'done' ? 'level-done' : 'level-failed', level: level.ref.id, outcome: { ...outcome, level: undefined } });
    }
  };
  const inFlight = Math.max(4, (ctx.pool?.size ?? 1) * 4);
  await Promise.all(Array.from({ length: Math.min(inFlight, Math.max(1, todo.length)) }, () => worker()));
}
