import { existsSync } from 'node:fs';
import { OFFICIAL_RULE } from '../../scoring/stability.js';
import { stageFilter, type CompetitionFolder } from '../config/index.js';
import { StageLog } from '../layout/stage-log.js';
import { provideLevelMachine, startLevel, type LevelInput } from '../machine/index.js';
import type { EnginePool } from '../pool/index.js';
import { settingsDigest } from '../stages/simulate.js';
import type { RunContext } from './context.js';
import { createRunEffects, readValidCache } from './effects.js';
import { charactersFound, planLevels, type LevelPaths, type PlannedLevel } from './levels.js';
import { observeLevel, outcomeFromCache } from './observe.js';
import { createPool } from './pool.js';

/**
 * The levels of one competition folder: one XState machine per trial of the work that is not done yet
 * (extract and convert verdicts, simulate trial k of ≤ 3 on the engine pool, capture, commit). A level an
 * earlier run (or `sbeval simulate`) finished — its cached result is valid for its XML and settings
 * and its image exists — is not run again. Trials start from whatever stage the folder has: a level
 * XML is simulated whether or not its response is there.
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
  const letters = settings.competitionLetters ?? charactersFound(competition.root);
  const planned = planLevels(competition.root, { characters: letters.length > 0 ? letters : settings.characters, trials: settings.trials, model: competition.model });
  const filter = stageFilter(settings);
  const work = planned.filter((l) => wanted(filter.teams, l.ref.team) && wanted(filter.characters, l.ref.character));
  warnAboutFewerTrials(ctx, planned);
  const digest = settingsDigest({ engine: settings.engine, trials: settings.simulationTrials, damage: settings.damage, rule: OFFICIAL_RULE, rawImages: false });
  const todo = await skipFinished(ctx, competition, work, digest);
  const inWork = new Set(work);
  const outside = planned.filter((l) => !inWork.has(l));
  for (const level of outside) ctx.outcomes.push(await observeLevel(competition.root, level, settings.prefix, digest));
  report.levels.total += planned.length;
  report.levels.outside += outside.length;
  const cached = work.length - todo.length;
  report.levels.cached += cached;

  const toSimulate = todo.filter((l) => existsSync(l.paths.level)).length;
  ctx.progress.start('simulate', toSimulate + cached);
  for (let i = 0; i < cached; i += 1) ctx.progress.tick('simulate', 'skipped');
  ctx.log.write({ type: 'stage-start', stage: 'levels', model: competition.model, planned: planned.length, outside: outside.length, cached, toSimulate });
  if (toSimulate > 0) ctx.pool ??= await createPool(settings, ctx.options.engineFactory, ctx.log, ctx.progress);
  await runMachines(ctx, competition, todo, digest);
  ctx.progress.end('simulate');
  ctx.log.write({ type: 'stage-end', stage: 'levels', model: competition.model });
  return work;
}

/** The folder has fewer trials than T (and T was not set): the others count as never generated. */
function warnAboutFewerTrials(ctx: RunContext, planned: readonly PlannedLevel[]): void {
  const { settings } = ctx;
  const highest = Math.max(0, ...planned.filter((l) => l.paths.raw !== undefined || existsSync(l.paths.level)).map((l) => (Number.isFinite(l.ref.trial) ? l.ref.trial : 0)));
  if (settings.sources.trials === 'default' && highest > 0 && highest < settings.trials) {
    ctx.warn('simulate', `expecting ${settings.trials} trials per character (the official T), found at most ${highest}: the others count as never generated; set \`trials: ${highest}\` in sbeval.config.yaml if that is intended`);
  }
}

/** Levels an earlier run finished become outcomes at once; the rest are returned to run. */
async function skipFinished(ctx: RunContext, competition: CompetitionFolder, planned: readonly PlannedLevel[], digest: string): Promise<PlannedLevel[]> {
  const todo: PlannedLevel[] = [];
  for (const level of planned) {
    const entry = await readValidCache(competition.root, level.ref.team, level.ref.character, level.ref.base, level.paths.level, level.paths.image, digest);
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

/** One machine per level, a bounded number in flight (memory stays flat; the pool queues their trials). */
async function runMachines(ctx: RunContext, competition: CompetitionFolder, todo: readonly PlannedLevel[], digest: string): Promise<void> {
  const { settings, report, progress, options } = ctx;
  const effects = createRunEffects({
    root: competition.root,
    prefix: settings.prefix,
    pool: ctx.pool as EnginePool, // only machines with a level XML reach `simulating`, and then a pool exists
    digest,
    damage: settings.damage,
    paths: new Map<string, LevelPaths>(todo.map((l) => [l.ref.id, l.paths])),
    startedAt: ctx.startedAt.getTime(),
    traces: settings.traces,
    ...(ctx.similarityPrefetch ? { onImage: (png: Uint8Array) => ctx.similarityPrefetch!.add(png) } : {}),
  });
  const machine = provideLevelMachine(ctx.latch.guard(effects));
  // The official stability log `sbeval simulate` writes: one line per level simulated now.
  const stabilityLog = new StageLog(competition.root, 'stability', ctx.now(), ctx.now);
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
      if (outcome.failure?.kind === 'level' && outcome.failure.stage === 'simulate') await effects.recordLevelError(level.ref, outcome.failure.reason);
      if (outcome.status === 'failed') report.levels.failed += 1;
      if (willSimulate) {
        report.levels.simulated += 1;
        stabilityLog.trial(level.ref.team, level.ref.character, `${level.ref.base}.xml`, outcome.status === 'done' ? { ok: true } : { ok: false, reason: outcome.failure?.reason ?? 'failed' });
        if (outcome.status === 'done') progress.tick('simulate', 'ok', level.ref.id);
        else progress.tick('simulate', 'failed', level.ref.id, outcome.failure?.reason);
      }
      for (const retry of outcome.retries) progress.note('simulate', `${level.ref.id}: ${retry.stage} of trial ${retry.trial} retried on another engine (${retry.reason})`);
      ctx.log.write({ type: outcome.status === 'done' ? 'level-done' : 'level-failed', level: level.ref.id, outcome: { ...outcome, level: undefined } });
    }
  };
  const inFlight = Math.max(4, (ctx.pool?.size ?? 1) * 4);
  await Promise.all(Array.from({ length: Math.min(inFlight, Math.max(1, todo.length)) }, () => worker()));
}

