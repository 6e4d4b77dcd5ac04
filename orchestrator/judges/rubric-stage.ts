import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { removeStaleTemps } from '../generate/write.js';
import { SbevalError } from '../../core/errors.js';
import { buildRubricPrompt, RUBRIC_PROMPT_VERSION } from '../../scoring/judges/rubric-prompt.js';
import { parseRubricAnswer } from '../../scoring/judges/rubric-answer.js';
import type { Rubric, Verdicts } from '../../scoring/judges/rubric.js';
import type { ViewKind } from '../../scoring/judges/views.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { HostPool, type HostPoolSettings } from '../generate/host-pool.js';
import { hostLabel } from '../model-calls/index.js';
import { RunLog } from '../generate/run-log.js';
import type { ProgressSink } from '../progress/types.js';
import { fingerprint } from './fingerprint.js';
import { Journal, journalPath, type AttemptLine } from './journal.js';
import { levelKey, listJudgedLevels, loadView, rubricFile, type JudgedLevel, type LevelFilter } from './levels.js';
import { rubricOf, type RubricSpec } from './rubric-file.js';
import { runJudgeTasks, type JudgeSettings, type JudgeTask, type RunnerCounts, type TaskResult } from './runner.js';

/**
 * `sbeval judge rubric`: every level of a competition folder judged by an LLM with the tiered
 * rubric (scoring/judges/rubric.ts), written per team and letter to
 * `<root>/<team>/judge-rubric/<C>.json`:
 *
 *   {judge: "rubric", team, character, settings: {model, view, temperature, seed, retries, maxTokens,
 *    prompt, rubric, fingerprint}, complete, summary: {trials, judged, failed, noLevel, meanScore},
 *    trials: [{trial, name, judged, ok, score, analysis, model, seed, attempts, failures: [{seed,
 *    reason, raw}], verdicts, itemsScore, consistent} …]}
 *
 * A trial with nothing to show (no image / no level) is `judged: false, score: 0` without a call
 * (a missing trial counts 0 officially too). A judge answer that never parses after the retries is
 * `ok: false, score: null` with the reason and the raw answer; it does not count in `meanScore`.
 * Answers live in the journal (journal.ts), so a killed run resumes without asking again; the letter
 * files are rewritten from it (atomically) as soon as a letter is complete, and at the end.
 */
export interface RubricJudgeOptions {
  root: string;
  filter: LevelFilter;
  view: ViewKind;
  rubric: RubricSpec;
  prefix: string;
  hosts: string[];
  judge: JudgeSettings;
  pool: HostPoolSettings;
  /** Replace letter files written with other settings (else that is an error). */
  force: boolean;
  startedAt?: Date;
}

export interface RubricTrialRecord {
  trial: number;
  name: string;
  judged: boolean;
  ok: boolean;
  score: number | null;
  analysis?: string;
  reason?: string;
  raw?: string;
  model?: string;
  seed?: number;
  attempts?: number;
  failures?: Array<{ seed: number; reason: string; raw: string }>;
  verdicts?: Verdicts | null;
  itemsScore?: number | null;
  consistent?: boolean | null;
}

export interface RubricLetterFile {
  judge: 'rubric';
  team: string;
  character: string;
  settings: { model: string; view: ViewKind; temperature: number; seed: number; retries: number; maxTokens: number; prompt: string; rubric: Rubric; fingerprint: string };
  complete: boolean;
  summary: { trials: number; judged: number; failed: number; noLevel: number; inconsistent: number; meanScore: number | null };
  trials: RubricTrialRecord[];
}

export interface RubricJudgeSummary {
  counts: RunnerCounts;
  noLevel: number;
  files: string[];
  logFile: string;
  stopped: string | undefined;
  inconsistent: number;
}

export const RUBRIC_STAGE = 'judge rubric';

function letterSettings(options: RubricJudgeOptions, rubric: Rubric): RubricLetterFile['settings'] {
  const { judge } = options;
  const core = { model: judge.model, view: options.view, temperature: judge.temperature, seed: judge.seed, retries: judge.retries, maxTokens: judge.maxTokens, prompt: RUBRIC_PROMPT_VERSION, rubric };
  // Retries do not change an answer already given, so they are not part of what an answer depends on.
  const { retries: _retries, ...shaping } = core;
  return { ...core, fingerprint: fingerprint(shaping) };
}

function record(level: JudgedLevel, attempts: readonly AttemptLine[], rubric: Rubric): RubricTrialRecord {
  const failures = attempts.filter((a) => !a.ok).map((a) => ({ seed: a.seed, reason: a.reason ?? 'refused', raw: a.content }));
  const good = attempts.find((a) => a.ok);
  const parsed = good ? parseRubricAnswer(good.content, rubric) : undefined;
  if (good && parsed && !parsed.ok) {
    // Only if the parser changed since the answer was journaled (the prompt version would normally change too).
    return { trial: level.trial, name: level.name, judged: true, ok: false, score: null, reason: `the journaled answer no longer parses: ${parsed.reason}`, raw: good.content, model: good.model, seed: good.seed, attempts: attempts.length, failures };
  }
  if (good && parsed?.ok) {
    return {
      trial: level.trial,
      name: level.name,
      judged: true,
      ok: true,
      score: parsed.score,
      analysis: parsed.analysis,
      model: good.model,
      seed: good.seed,
      attempts: attempts.length,
      failures,
      verdicts: parsed.verdicts ?? null,
      itemsScore: parsed.itemsScore ?? null,
      consistent: parsed.consistent ?? null,
    };
  }
  const last = attempts.at(-1)!;
  return { trial: level.trial, name: level.name, judged: true, ok: false, score: null, reason: last.reason ?? 'refused', raw: last.content, model: last.model, seed: last.seed, attempts: attempts.length, failures };
}

function summarise(trials: readonly RubricTrialRecord[]): RubricLetterFile['summary'] {
  const scored = trials.filter((t) => t.score !== null).map((t) => t.score!);
  return {
    trials: trials.length,
    judged: trials.filter((t) => t.judged && t.ok).length,
    failed: trials.filter((t) => t.judged && !t.ok).length,
    noLevel: trials.filter((t) => !t.judged).length,
    inconsistent: trials.filter((t) => t.consistent === false).length,
    meanScore: scored.length === 0 ? null : scored.reduce((a, b) => a + b, 0) / scored.length,
  };
}

/** Reads a letter file written earlier (undefined when absent or unreadable). */
export function readRubricFile(path: string): RubricLetterFile | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as RubricLetterFile;
    return data.judge === 'rubric' && Array.isArray(data.trials) ? data : undefined;
  } catch {
    return undefined;
  }
}

export async function runRubricJudge(options: RubricJudgeOptions, progress: ProgressSink, cancel?: AbortSignal): Promise<RubricJudgeSummary> {
  const { root } = options;
  const levels = listJudgedLevels(root, options.filter);
  if (levels.length === 0) throw new SbevalError('input', `no levels to judge in ${root}`, 'run `sbeval run` (or extract, convert, simulate) first');

  // Per team and letter: the rubric, the settings, and a check against what is already written.
  const groups = new Map<string, { team: string; character: string; rubric: Rubric; settings: RubricLetterFile['settings']; levels: JudgedLevel[]; records: Map<string, RubricTrialRecord>; open: number }>();
  for (const level of levels) {
    const id = `${level.team}/${level.character}`;
    let group = groups.get(id);
    if (!group) {
      const rubric = rubricOf(options.rubric, level.character);
      group = { team: level.team, character: level.character, rubric, settings: letterSettings(options, rubric), levels: [], records: new Map(), open: 0 };
      groups.set(id, group);
    }
    group.levels.push(level);
  }
  if (!options.force) {
    for (const group of groups.values()) {
      const path = rubricFile(root, group.team, group.character);
      const existing = readRubricFile(path);
      if (existing && existing.settings?.fingerprint !== group.settings.fingerprint) {
        throw new SbevalError(
          'config',
          `${path} was judged with other settings (model ${existing.settings?.model}, view ${existing.settings?.view}); judging again would replace it`,
          'pass --force to replace it, or judge a copy of the folder',
        );
      }
    }
  }

  // Temporaries of letter files whose writer was killed.
  for (const dir of new Set([...groups.values()].map((g) => dirname(rubricFile(root, g.team, g.character))))) await removeStaleTemps(dir);

  const journal = new Journal(journalPath(root, 'rubric'));
  const fingerprints = new Map<string, string>();
  for (const group of groups.values()) for (const level of group.levels) fingerprints.set(levelKey(level), group.settings.fingerprint);
  const previous = journal.read((key) => fingerprints.get(key));

  const files: string[] = [];
  const writeGroup = async (group: NonNullable<ReturnType<typeof groups.get>>) => {
    const trials = group.levels.filter((l) => group.records.has(l.name)).map((l) => group.records.get(l.name)!);
    if (trials.length === 0) return;
    const file: RubricLetterFile = { judge: 'rubric', team: group.team, character: group.character, settings: group.settings, complete: group.open === 0, summary: summarise(trials), trials };
    const path = rubricFile(root, group.team, group.character);
    await writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`);
    if (!files.includes(path)) files.push(path);
  };

  // Levels without a view are settled at once; the others become judge tasks.
  const tasks: JudgeTask[] = [];
  const owner = new Map<string, { group: NonNullable<ReturnType<typeof groups.get>>; level: JudgedLevel }>();
  let noLevel = 0;
  for (const group of groups.values()) {
    for (const level of group.levels) {
      const view = await loadView(level, options.view, options.prefix);
      if ('missing' in view) {
        noLevel += 1;
        group.records.set(level.name, { trial: level.trial, name: level.name, judged: false, ok: true, score: 0, reason: view.missing });
        continue;
      }
      group.open += 1;
      const key = levelKey(level);
      owner.set(key, { group, level });
      tasks.push({
        key,
        fingerprint: group.settings.fingerprint,
        label: key,
        prompt: async () => buildRubricPrompt(group.rubric, view),
        parse: (content) => {
          const parsed = parseRubricAnswer(content, group.rubric);
          return parsed.ok ? { ok: true } : { ok: false, reason: parsed.reason };
        },
      });
    }
  }

  const log = new RunLog(root, options.startedAt ?? new Date(), 'judge-rubric');
  log.write({ type: 'start', time: new Date().toISOString(), judge: 'rubric', model: options.judge.model, view: options.view, rubric: options.rubric.source, hosts: options.hosts.map(hostLabel), levels: levels.length, tasks: tasks.length });
  let result: { counts: RunnerCounts; stopped: string | undefined } = { counts: { asked: 0, ok: 0, failed: 0, cached: 0, unfinished: 0, calls: 0 }, stopped: undefined };
  const needsCalls = tasks.some((t) => !(previous.get(t.key) ?? []).some((a) => a.ok) && (previous.get(t.key) ?? []).length < options.judge.retries + 1) || options.judge.retryFailed;
  const pool = new HostPool(options.hosts, options.pool, (event) => {
    log.write({ ...event, type: 'host', state: event.type, time: new Date().toISOString() });
    if (event.type !== 'back') progress.note(RUBRIC_STAGE, `host ${event.host}: ${event.type}${'reason' in event ? ` (${event.reason})` : ''}`);
  });
  if (needsCalls && tasks.length > 0) await preflight(pool, options.judge.model, options.hosts);
  result = await runJudgeTasks(tasks, { settings: options.judge, pool, journal, log, progress, stage: RUBRIC_STAGE, cancel }, previous, async (r: TaskResult) => {
    const own = owner.get(r.task.key)!;
    if (r.status === 'unfinished') return;
    own.group.records.set(own.level.name, record(own.level, r.attempts, own.group.rubric));
    own.group.open -= 1;
    if (own.group.open === 0 && !r.cached) await writeGroup(own.group);
  });
  for (const group of groups.values()) await writeGroup(group);
  let inconsistent = 0;
  for (const group of groups.values()) for (const r of group.records.values()) if (r.consistent === false) inconsistent += 1;
  log.write({ type: 'end', time: new Date().toISOString(), counts: result.counts, noLevel, stopped: result.stopped ?? null });
  return { counts: result.counts, noLevel, files, logFile: log.file, stopped: result.stopped, inconsistent };
}

/** The judge model must be on some host before anything is asked. */
export async function preflight(pool: HostPool, model: string, hosts: readonly string[]): Promise<void> {
  const report = await pool.preflight([model]);
  if (report.reachable.length === 0) {
    throw new SbevalError('judge', `no Ollama host answered /api/tags (${report.unreachable.map((u) => `${u.host}: ${u.reason}`).join('; ')})`, `start \`ollama serve\`, or pass the right --hosts (tried ${hosts.map(hostLabel).join(', ')})`);
  }
  if (report.missing.length > 0 && report.unreachable.length === 0) {
    throw new SbevalError('judge', `no host has the judge model ${model}`, `run \`ollama pull ${model}\` on the hosts`);
  }
}
