import { existsSync, readFileSync } from 'node:fs';
import { judgesReportSection } from '../judges/report.js';
import { extname, join } from 'node:path';
import { createEngines } from '../../bridge/engines.js';
import { parseSimilarityJson } from '../../scoring/formats/similarity.js';
import { escapeXml } from '../../scoring/report/index.js';
import { plainFromMarkdown } from '../../scoring/formats/text-escape.js';
import { OFFICIAL_RULE } from '../../scoring/stability.js';
import type { RunConfig } from '../config/index.js';
import { SbevalError, describeError } from '../../core/errors.js';
import { DEFAULT_POOL_SETTINGS } from '../generate/host-pool.js';
import { OFFICIAL_TEMPERATURE, OFFICIAL_TOP_P } from '../generate/limits.js';
import { runGenerate } from '../generate/stage.js';
import { loadSubmission } from '../generate/submission.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { listFiles, resultDir, stageDir, trialBaseName, type StageFilter } from '../layout/competition.js';
import type { StageSummary } from '../layout/stage-log.js';
import { provideLevelMachine, startLevel, type LevelInput, type LevelOutcome } from '../machine/index.js';
import { EnginePool, type EngineFactory, type PoolEvent } from '../pool/index.js';
import { SILENT_PROGRESS, type ProgressSink } from '../progress/types.js';
import { runConvertStage } from '../stages/convert.js';
import { runDiversityStage } from '../stages/diversity.js';
import { runExtractStage } from '../stages/extract.js';
import { runScoreStage } from '../stages/score.js';
import { runSimilarityStage } from '../stages/similarity.js';
import { runSimulateStage, settingsDigest } from '../stages/simulate.js';
import { failureSection, sortRows, trialRow, trialsCsv, type SimilarityLookup, type TrialRow } from './accounting.js';
import { createRunEffects, readValidCache, type CachedLevel } from './effects.js';
import { charactersFound, planLevels, type LevelPaths, type PlannedLevel } from './levels.js';
import { StorageFaultLatch } from './fault.js';
import { bridgePool } from './bridge-pool.js';
import { RunLog } from './run-log.js';
import { runSettingsFacts } from '../report/settings.js';
import { unfinishedWork, type UnfinishedWork } from './unfinished.js';

/**
 * `sbeval run`: a whole competition from raw responses (or submissions) to `result/`, headless,
 * resumable. Stages in order, each skipping work already done:
 *
 * 1. generate (when submissions are configured)      — H6's stage (a trial whose file exists is done)
 * 2. extract, convert                                 — H1's folder stages (official logs, mtime skip)
 * 3. levels: one XState machine per trial             — extract/convert verdicts, simulate trial k of ≤ 3
 *    on the engine pool, capture, commit (a level finished by an earlier run is skipped: its cached
 *    result is valid for its XML and settings and its image exists)
 * 4. stability JSON per character                     — H2's simulate stage writes them from the caches
 * 5. similarity, diversity                            — H4's stages (need a similarity model)
 * 6. result/trials.csv + result/failures.md           — every trial's fate
 * 7. score                                            — H3's stage (needs similarity), report with the
 *                                                        failure section
 *
 * Multi-model runs (more than one model configured) have a competition folder per model,
 * `<root>/<model-folder>/` (H6's layout); stages 2–5 run on each, scoring aggregates them (H3).
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
  /** Model folder in multi-model runs. */
  model?: string | undefined;
  status: StageStatus;
  detail: string;
}

export interface RunReport {
  root: string;
  runLog: string;
  stages: RunStageReport[];
  trials: TrialRow[];
  trialsCsv: string;
  levels: { total: number; simulated: number; cached: number; failed: number; retries: number };
  /** False when the run had no similarity model: no similarity, diversity or score files were made. */
  similarity: boolean;
  cancelled: boolean;
  /** What the run could not finish (the command exits 1 unless it is nothing). */
  unfinished: UnfinishedWork;
  /** Engines the pool retired, replaced and could not replace (a pool never shrinks silently). */
  engines: { retired: number; replaced: number; replaceFailed: number };
}

/** How to get the competition's similarity model (H4's `sbeval model fetch`). */
export const MODEL_HINT = 'sbeval model fetch pittawat/vit-base-uppercase-english-characters';

const STATE_TIMEOUT_FLOOR_MS = 60_000;

/** One competition folder: the root, or `<root>/<model>/` per model in multi-model runs. */
interface Competition {
  root: string;
  model: string | undefined;
}

export async function runCompetition(outer: RunOptions): Promise<RunReport> {
  // A storage fault anywhere (log, level effects) stops the run through its signal: run/fault.ts.
  const latch = new StorageFaultLatch(outer.signal);
  const options: RunOptions = { ...outer, signal: latch.signal };
  const { config } = options;
  const progress = options.progress ?? SILENT_PROGRESS;
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const log = new RunLog(config.root, startedAt, now, (fault) => latch.report(fault));
  const stages: RunStageReport[] = [];
  const report: RunReport = {
    root: config.root,
    runLog: log.file,
    stages,
    trials: [],
    trialsCsv: join(resultDir(config.root), 'trials.csv'),
    levels: { total: 0, simulated: 0, cached: 0, failed: 0, retries: 0 },
    similarity: config.model !== undefined,
    cancelled: false,
    unfinished: { levels: 0, reasons: [], stages: [] },
    engines: { retired: 0, replaced: 0, replaceFailed: 0 },
  };
  const record = (entry: RunStageReport, extra: Record<string, unknown> = {}) => {
    stages.push(entry);
    log.write({ type: 'stage-end', ...entry, ...extra });
  };
  log.write({ type: 'run-start', root: config.root, config: { ...config, root: undefined }, node: process.version });

  let pool: EnginePool | undefined;
  const outcomes: LevelOutcome[] = [];
  try {
    const competitions: Competition[] =
      config.models.length > 1 ? config.models.map((m) => ({ root: join(config.root, m.folder), model: m.folder })) : [{ root: config.root, model: undefined }];

    // 1. generate
    for (const submission of config.submissions) {
      throwIfCancelled(options.signal);
      log.write({ type: 'stage-start', stage: 'generate', team: submission.team });
      const spec = submission.kind === 'program' && !['.json', '.yaml', '.yml'].includes(extname(submission.file).toLowerCase()) ? `exec:${submission.file}` : submission.file;
      const summary = await runGenerate(
        {
          root: config.root,
          submission: loadSubmission(spec),
          team: submission.team,
          models: config.models.map((m) => m.name),
          hosts: config.hosts,
          trials: config.trials,
          characters: config.characters,
          masterSeed: config.seed,
          limits: { timeLimitS: config.limits.timeSeconds, tokenLimit: config.limits.tokens },
          sampling: { temperature: OFFICIAL_TEMPERATURE, topP: OFFICIAL_TOP_P },
          concurrency: config.hosts.length,
          layout: 'auto',
          retryFailed: false,
          pool: DEFAULT_POOL_SETTINGS,
        },
        progress,
        { note: (message) => progress.note('generate', message) },
        options.signal,
      );
      const done = summary.models.reduce((n, m) => n + m.succeeded + m.alreadyDone, 0);
      const failed = summary.models.reduce((n, m) => n + m.failed + m.previouslyFailed, 0);
      record({ stage: 'generate', status: summary.stopped ? 'failed' : 'done', detail: `${submission.team}: ${done} responses, ${failed} failed${summary.stopped ? `; stopped: ${summary.stopped}` : ''}` });
    }

    // 2–4. level stages per competition folder
    for (const competition of competitions) {
      throwIfCancelled(options.signal);
      if (!existsSync(competition.root)) {
        record({ stage: 'levels', model: competition.model, status: 'skipped', detail: `${competition.root} does not exist` });
        continue;
      }
      const filter = stageFilter(config);
      const stageDone = (stage: string, summary: StageSummary) =>
        record(
          { stage, model: competition.model, status: 'done', detail: `${summary.succeeded} ok, ${summary.failed} failed, ${summary.skipped} already done` },
          { reasons: Object.fromEntries(summary.reasons) },
        );
      log.write({ type: 'stage-start', stage: 'extract', model: competition.model });
      stageDone('extract', await runExtractStage({ root: competition.root, filter, prefix: config.prefix, now }, progress));
      throwIfCancelled(options.signal);
      log.write({ type: 'stage-start', stage: 'convert', model: competition.model });
      stageDone('convert', await runConvertStage({ root: competition.root, filter, prefix: config.prefix, now }, progress));
      throwIfCancelled(options.signal);

      const levels = await runLevels(competition, { config, options, progress, log, report, outcomes, startedAt, pool, latch });
      pool = levels.pool;
      const levelsWithXml = levels.planned.filter((l) => existsSync(l.paths.level));
      throwIfCancelled(options.signal);

      // The evaluator's per-character stability files, from the caches the machines committed
      // (no engines: a level that is not done is left for the next run, never run here).
      const summary = await runSimulateStage({ root: competition.root, filter, engines: [], trials: config.simulationTrials, damage: config.damage, engine: config.engine }, SILENT_PROGRESS);
      // A character with a level that is not done (an engine failure past its retries) gets no file yet: say so.
      const written = new Set(summary.characters);
      const held = [...new Set(levelsWithXml.map((l) => `${l.ref.team}/${l.ref.character}`))].filter((key) => !written.has(key));
      for (const key of held) progress.note('stability', `${key}: not every level is done, so its stability file is not written; run again to retry them`);
      record(
        {
          stage: 'stability',
          model: competition.model,
          status: held.length > 0 ? 'failed' : 'done',
          detail: `${summary.characters.length} character file(s)${held.length > 0 ? `; ${held.length} held back until their levels are done (run again)` : ''}`,
        },
        { held },
      );
    }
    if (pool) report.engines = { ...pool.stats };
    await pool?.close();
    pool = undefined;

    // 5. similarity and diversity
    for (const competition of competitions) {
      if (!existsSync(competition.root)) continue;
      throwIfCancelled(options.signal);
      if (config.model === undefined) {
        record({ stage: 'similarity', model: competition.model, status: 'unavailable', detail: `no similarity model; get one with \`${MODEL_HINT}\`, then run again with --model <file.onnx>` });
        continue;
      }
      log.write({ type: 'stage-start', stage: 'similarity', model: competition.model });
      const similarity = await runSimilarityStage({ root: competition.root, model: config.model, rules: config.rules === '2025' ? 2025 : 2024, filter: stageFilter(config), now }, progress);
      record({ stage: 'similarity', model: competition.model, status: 'done', detail: `${similarity.succeeded} ok, ${similarity.failed} failed, ${similarity.skipped} already done` });
      if (config.rules === '2023') continue; // 2023 had no diversity
      throwIfCancelled(options.signal);
      log.write({ type: 'stage-start', stage: 'diversity', model: competition.model });
      const diversity = await runDiversityStage({ root: competition.root, rules: config.rules === '2025' ? 2025 : 2024, trials: config.trials, filter: stageFilter(config), now }, progress);
      record({ stage: 'diversity', model: competition.model, status: 'done', detail: `${diversity.succeeded} ok, ${diversity.failed} failed, ${diversity.skipped} already done` });
    }
    if (config.model === undefined) progress.note('similarity', `no similarity model: similarity, diversity and scores are not computed. Get the model with \`${MODEL_HINT}\``);

    // 6. failure accounting
    const lookups = new Map(competitions.map((c) => [c.model ?? '', similarityLookup(c.root, config.model !== undefined)]));
    report.trials = sortRows(outcomes.map((o) => trialRow(o, lookups.get(o.level.model ?? ''))));
    await writeFileAtomic(report.trialsCsv, trialsCsv(report.trials));
    const section = failureSection(report.trials);
    await writeFileAtomic(join(resultDir(config.root), 'failures.md'), `## ${section.title}\n\n${section.markdown}\n`);
    record({ stage: 'accounting', status: 'done', detail: `${report.trials.length} trials in result/trials.csv and result/failures.md` });

    // 7. score
    throwIfCancelled(options.signal);
    if (config.model === undefined) {
      record({ stage: 'score', status: 'unavailable', detail: 'needs similarity: result/ holds trials.csv and failures.md only' });
    } else {
      log.write({ type: 'stage-start', stage: 'score' });
      const scored = await runScoreStage({
        root: config.root,
        rules: config.rules,
        trials: config.trials,
        ...(config.models.length > 1 ? { models: config.models.map((m) => m.name) } : {}),
        sections: [
          { id: 'failure-accounting', title: section.title, markdown: section.markdown, html: markdownTableToHtml(section.markdown) },
          // Judges beyond the ViT, when the folder holds their results (sbeval judge / survey).
          ...[judgesReportSection(config.root, { rules: config.rules, trials: config.trials })].filter((x) => x !== undefined),
        ],
        trialFates: report.trials,
        prefix: config.prefix,
        settings: await runSettingsFacts(config),
        progress,
      });
      record({ stage: 'score', status: 'done', detail: `competition score ${scored.competitionScore}; ${scored.warnings.length} warning(s); ${scored.resultDir}` });
    }
  } catch (error) {
    if (latch.fault) {
      log.write({ type: 'run-error', error: describeError(latch.fault) });
      throw latch.fault;
    }
    if (options.signal?.aborted) {
      report.cancelled = true;
      log.write({ type: 'run-cancelled', reason: describeError(options.signal.reason ?? error) });
    } else {
      log.write({ type: 'run-error', error: describeError(error) });
      throw error;
    }
  } finally {
    if (pool) report.engines = { ...pool.stats };
    await pool?.close();
    report.unfinished = unfinishedWork(outcomes, stages);
    log.write({ type: 'run-end', levels: report.levels, cancelled: report.cancelled, unfinished: report.unfinished, engines: report.engines });
    log.close();
  }
  return report;
}

function stageFilter(config: RunConfig): StageFilter {
  return { teams: config.teams, characters: config.sources.characters === 'default' ? undefined : config.characters };
}

interface LevelRunContext {
  config: RunConfig;
  options: RunOptions;
  progress: ProgressSink;
  log: RunLog;
  report: RunReport;
  outcomes: LevelOutcome[];
  startedAt: Date;
  pool: EnginePool | undefined;
  latch: StorageFaultLatch;
}

/** Stage 3: a machine per trial that is not done yet; returns the pool (created on first need). */
async function runLevels(competition: Competition, ctx: LevelRunContext): Promise<{ pool: EnginePool | undefined; planned: PlannedLevel[] }> {
  const { config, options, progress, log, report, outcomes } = ctx;
  let pool = ctx.pool;
  const found = config.sources.characters === 'default' ? charactersFound(competition.root, config.teams) : config.characters;
  const planned = planLevels(competition.root, { teams: config.teams, characters: found.length > 0 ? found : config.characters, trials: config.trials, model: competition.model });
  const digest = settingsDigest({ engine: config.engine, trials: config.simulationTrials, damage: config.damage, rule: OFFICIAL_RULE, rawImages: false });
  const highest = Math.max(0, ...planned.filter((l) => l.paths.raw !== undefined || existsSync(l.paths.level)).map((l) => (Number.isFinite(l.ref.trial) ? l.ref.trial : 0)));
  if (config.sources.trials === 'default' && highest > 0 && highest < config.trials) {
    progress.note('simulate', `expecting ${config.trials} trials per character (the official T), found at most ${highest}: the others count as never generated; set \`trials: ${highest}\` in sbeval.config.yaml if that is intended`);
  }

  // Levels an earlier run finished are not run again.
  const todo: PlannedLevel[] = [];
  let cached = 0;
  for (const level of planned) {
    const entry = await readValidCache(competition.root, level.ref.team, level.ref.character, level.ref.base, level.paths.level, level.paths.image, digest);
    if (entry) {
      outcomes.push(outcomeFromCache(level, entry));
      log.write({ type: 'level-cached', level: level.ref.id, ok: entry.outcome.ok });
      cached += 1;
    } else todo.push(level);
  }
  report.levels.total += planned.length;
  report.levels.cached += cached;

  const toSimulate = todo.filter((l) => existsSync(l.paths.level)).length;
  progress.start('simulate', toSimulate + cached);
  for (let i = 0; i < cached; i += 1) progress.tick('simulate', 'skipped');
  log.write({ type: 'stage-start', stage: 'levels', model: competition.model, planned: planned.length, cached, toSimulate });
  if (toSimulate > 0) pool ??= await createPool(config, options.engineFactory, log, progress);

  const paths = new Map<string, LevelPaths>(todo.map((l) => [l.ref.id, l.paths]));
  const effects = createRunEffects({
    root: competition.root,
    prefix: config.prefix,
    pool: pool as EnginePool, // only machines with a level XML reach `simulating`, and then a pool exists
    digest,
    damage: config.damage,
    paths,
    startedAt: ctx.startedAt.getTime(),
    traces: config.traces,
  });
  const machine = provideLevelMachine(ctx.latch.guard(effects));
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
      if (outcome.failure?.kind === 'cancelled') return; // not an outcome: the next run does this level
      outcomes.push(outcome);
      report.levels.retries += outcome.retries.length;
      if (outcome.failure?.kind === 'level' && outcome.failure.stage === 'simulate') await effects.recordLevelError(level.ref, outcome.failure.reason);
      if (outcome.status === 'failed') report.levels.failed += 1;
      if (willSimulate) {
        report.levels.simulated += 1;
        if (outcome.status === 'done') progress.tick('simulate', 'ok', level.ref.id);
        else progress.tick('simulate', 'failed', level.ref.id, outcome.failure?.reason);
      }
      for (const retry of outcome.retries) progress.note('simulate', `${level.ref.id}: ${retry.stage} of trial ${retry.trial} retried on another engine (${retry.reason})`);
      log.write({ type: outcome.status === 'done' ? 'level-done' : 'level-failed', level: level.ref.id, outcome: { ...outcome, level: undefined } });
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, Math.max(1, todo.length)) }, () => worker()));
  progress.end('simulate');
  log.write({ type: 'stage-end', stage: 'levels', model: competition.model });
  return { pool, planned };
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

/** Similarity per trial from `<team>/similarity/<C>.json` (ids are image file names); undefined without a model. */
function similarityLookup(root: string, available: boolean): SimilarityLookup {
  if (!available) return undefined;
  const cache = new Map<string, Map<string, number>>();
  return (team, character, base) => {
    const key = `${team}/${character}`;
    let byBase = cache.get(key);
    if (!byBase) {
      byBase = new Map();
      const file = join(stageDir(root, team, 'similarity'), `${character}.json`);
      if (existsSync(file) && listFiles(stageDir(root, team, 'similarity')).includes(`${character}.json`)) {
        try {
          for (const t of parseSimilarityJson(readFileSync(file, 'utf8'), file).trials) byBase.set(trialBaseName(t.id), t.similarity);
        } catch {
          // An unreadable file leaves the column empty; the score stage reports the file.
        }
      }
      cache.set(key, byBase);
    }
    return byBase.get(base);
  };
}

/** The failure section's markdown (a paragraph and one table) as an HTML fragment, all text escaped. */
export function markdownTableToHtml(markdown: string): string {
  const lines = markdown.split('\n');
  const html: string[] = [];
  const cells = (line: string) =>
    line
      .replace(/^\|\s?|\s?\|$/g, '')
      .split(/\s\|\s/);
  let inTable = false;
  for (const line of lines) {
    if (line.startsWith('|')) {
      if (/^\|\s*-/.test(line)) continue;
      // `<br>` separates reasons; everything else is escaped Markdown text (accounting.ts).
      const row = cells(line).map((c) => c.split('<br>').map((part) => escapeXml(plainFromMarkdown(part))).join('<br>'));
      if (!inTable) {
        html.push('<table>', `<tr>${row.map((c) => `<th>${c}</th>`).join('')}</tr>`);
        inTable = true;
      } else html.push(`<tr>${row.map((c) => `<td>${c}</td>`).join('')}</tr>`);
    } else {
      if (inTable) {
        html.push('</table>');
        inTable = false;
      }
      if (line.trim()) html.push(`<p>${escapeXml(line).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`);
    }
  }
  if (inTable) html.push('</table>');
  return html.join('\n');
}

/** The pool of `config.engine` (or of the injected factory). */
async function createPool(config: RunConfig, injected: EngineFactory | undefined, log: RunLog, progress: ProgressSink): Promise<EnginePool> {
  const common = {
    stallMs: config.limits.stallMs,
    jobTimeoutMs: config.limits.trialMs,
    maxAttempts: 1,
    onEvent: (event: PoolEvent) => {
      log.pool(event);
      // Engines retired because the pool closes at the end are not news.
      if (event.type === 'engine-retired' && event.reason !== 'the engine pool closed') progress.note('simulate', `engine ${event.engineId} retired: ${event.reason}`);
      if (event.type === 'engine-replace-failed') progress.note('simulate', `engine slot ${event.slot} not replaced: ${event.reason}`);
    },
  };
  if (injected) return EnginePool.create({ ...common, size: config.workers, factory: injected });
  if (config.engine === 'bridge') return bridgePool(config, common, log, progress);
  // One call for all engines (one endpoint for process fleets); replacements one by one.
  const engines = await createEngines(config.engine, config.workers);
  const factory: EngineFactory = async (slot, generation) => {
    const [engine] = await createEngines(config.engine, 1);
    if (!engine) throw new SbevalError('launch', `no ${config.engine} engine for slot ${slot} (generation ${generation})`);
    return engine;
  };
  return new EnginePool({ ...common, engines, factory });
}
