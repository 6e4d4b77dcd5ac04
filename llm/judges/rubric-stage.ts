import { dirname } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { sha256 } from '../../core/hash.js';
import { writeFileAtomic } from '../../orchestrator/layout/atomic.js';
import type { ProgressSink } from '../../orchestrator/progress/types.js';
import { removeStaleTemps } from '../generate/write.js';
import { fingerprint } from './fingerprint.js';
import { type Attempt, Journal, journalPath } from './journal.js';
import { type FailureCounts, failureCounts, type JudgeStageOptions, runJudge } from './judge-run.js';
import { type JudgedLevel, levelKey, listJudgedLevels, loadView } from './levels.js';
import { rubricFile, storePrompt } from './paths.js';
import { type RubricSpec, rubricOf } from './rubric-file.js';
import { type RubricLetterFile, type RubricTrialRecord, readRubricFile, summarise } from './rubric-record.js';
import { callRecord, type JudgeTask, promptDigest, type RunnerCounts, requestFingerprint, type TaskResult } from './runner.js';
import { type Interval, meanInterval } from './scoring/bootstrap.js';
import type { PromptTemplate } from './scoring/prompt-template.js';
import type { LowTier, Rubric } from './scoring/rubric.js';
import { parseRubricAnswer } from './scoring/rubric-answer.js';
import { buildRubricPrompt, RUBRIC_PROMPT_VERSION, type RubricProtocol } from './scoring/rubric-prompt.js';
import type { LevelView } from './scoring/views.js';

/**
 * `sbeval judge rubric`: every level of a competition folder judged by an LLM with the tiered
 * rubric (llm/judges/scoring/rubric.ts), written per team and letter to
 * `<root>/<team>/judge-rubric/<judge>/<C>.json` (rubric-record.ts has the shape and the failure rule).
 * Answers live in the journal (journal.ts), keyed by the content of each request, so a killed run
 * resumes without asking again, and a level whose image, XML or drop program changed is asked again;
 * the letter files are rewritten from it (atomically) as soon as a letter is complete, and at the end.
 */
export interface RubricJudgeOptions extends JudgeStageOptions {
  rubric: RubricSpec;
  protocol: RubricProtocol;
  lowTier: LowTier;
  template: { source: string; template: PromptTemplate } | undefined;
}

export interface RubricJudgeSummary {
  counts: RunnerCounts;
  /** Per team: the mean over its levels (failures count 0) with a bootstrap 95 % interval. */
  teams: Array<{ team: string; levels: number; mean: number | null; interval: Interval | null }>;
  failures: FailureCounts;
  files: string[];
  logFile: string;
  stopped: string | undefined;
  inconsistent: number;
}

export const RUBRIC_STAGE = 'judge rubric';

interface LetterGroup {
  team: string;
  character: string;
  rubric: Rubric;
  settings: RubricLetterFile['settings'];
  levels: JudgedLevel[];
  records: Map<string, RubricTrialRecord>;
  open: number;
}

function viewDigest(view: LevelView): string {
  return sha256(view.kind === 'image' ? view.png : view.text);
}

function letterSettings(options: RubricJudgeOptions, rubric: Rubric): RubricLetterFile['settings'] {
  const { judge } = options;
  const shaping = {
    api: judge.api,
    model: judge.model,
    view: options.view,
    protocol: options.protocol,
    lowTier: options.lowTier,
    template: options.template ? sha256(JSON.stringify(options.template.template)) : null,
    temperature: judge.temperature,
    seed: judge.seed,
    maxTokens: judge.maxTokens,
    prompt: RUBRIC_PROMPT_VERSION,
    rubric,
  };
  // Retries, the answer cap and the model's digest do not change an answer already given: not part of the fingerprint.
  return { ...shaping, digests: [], retries: judge.retries, fingerprint: fingerprint(shaping) };
}

interface Owned {
  group: LetterGroup;
  level: JudgedLevel;
  task: JudgeTask;
  /** The digest of what the judge was shown (the level's image bytes or text). */
  input: string;
}

function record(own: Owned, attempts: readonly Attempt[], journal: Journal, lowTier: LowTier): RubricTrialRecord {
  const { level, group, task } = own;
  const base = { trial: level.trial, name: level.name, input: own.input, prompt: task.promptDigest };
  const failures = attempts.filter((a) => !a.ok).map((a) => ({ seed: a.seed, reason: a.reason ?? 'refused', raw: journal.content(a) }));
  const calls = attempts.map(callRecord);
  const common = { model: attempts[0]!.model, attempts: attempts.length, failures, calls };
  const good = attempts.find((a) => a.ok);
  const parsed = good ? parseRubricAnswer(journal.content(good), group.rubric, lowTier) : undefined;
  if (good && parsed?.ok) {
    return {
      ...base,
      status: 'judged',
      score: parsed.score,
      analysis: parsed.analysis,
      seed: good.seed,
      ...common,
      verdicts: parsed.verdicts ?? null,
      itemsScore: parsed.itemsScore ?? null,
      consistent: parsed.consistent ?? null,
    };
  }
  const last = good ?? attempts.at(-1)!;
  // A good attempt that no longer parses means the parser changed since it was journaled.
  const reason = good && parsed && !parsed.ok ? `the journaled answer no longer parses: ${parsed.reason}` : (last.reason ?? 'refused');
  return { ...base, status: 'refused', score: 0, reason, raw: journal.content(last), seed: last.seed, ...common };
}

function groupLevels(options: RubricJudgeOptions, levels: readonly JudgedLevel[]): Map<string, LetterGroup> {
  const groups = new Map<string, LetterGroup>();
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
  return groups;
}

function refuseOtherSettings(options: RubricJudgeOptions, groups: Iterable<LetterGroup>): void {
  if (options.force) return;
  for (const group of groups) {
    const path = rubricFile(options.root, group.team, options.id, group.character);
    const existing = readRubricFile(path);
    const earlier = existing && 'file' in existing ? existing.file.settings : undefined;
    if (earlier && earlier.fingerprint !== group.settings.fingerprint) {
      throw new SbevalError(
        'config',
        `${path} was judged by "${options.id}" with other settings (model ${earlier.model}, view ${earlier.view}, protocol ${earlier.protocol}); judging again would replace it`,
        'pass --label <name> to keep both judges side by side, or --force to replace it',
      );
    }
  }
}

async function planTasks(
  options: RubricJudgeOptions,
  groups: Iterable<LetterGroup>,
  owner: Map<string, Owned>,
): Promise<{ tasks: JudgeTask[]; missing: number }> {
  const tasks: JudgeTask[] = [];
  let missing = 0;
  for (const group of groups) {
    for (const level of group.levels) {
      const view = await loadView(level, options.view, options.prefix);
      if ('missing' in view) {
        missing += 1;
        group.records.set(level.name, { trial: level.trial, name: level.name, status: 'missing', score: 0, input: null, prompt: null, reason: view.missing });
        continue;
      }
      group.open += 1;
      const prompt = buildRubricPrompt(group.rubric, view, { protocol: options.protocol, lowTier: options.lowTier, template: options.template?.template });
      const task: JudgeTask = {
        key: levelKey(level),
        fingerprint: requestFingerprint(options.judge, prompt),
        promptDigest: promptDigest(prompt),
        label: levelKey(level),
        prompt,
        parse: (content) => {
          const parsed = parseRubricAnswer(content, group.rubric, options.lowTier);
          return parsed.ok ? { ok: true } : { ok: false, reason: parsed.reason };
        },
      };
      owner.set(task.key, { group, level, task, input: viewDigest(view) });
      tasks.push(task);
      await storePrompt(options.root, task.promptDigest, prompt);
    }
  }
  return { tasks, missing };
}

export async function runRubricJudge(options: RubricJudgeOptions, progress: ProgressSink, cancel?: AbortSignal): Promise<RubricJudgeSummary> {
  const { root } = options;
  const levels = listJudgedLevels(root, options.filter);
  if (levels.length === 0) throw new SbevalError('input', `no levels to judge in ${root}`, 'run `sbeval run` (or extract, convert, simulate) first');
  const groups = groupLevels(options, levels);
  refuseOtherSettings(options, groups.values());
  // Temporaries of letter files whose writer was killed.
  for (const dir of new Set([...groups.values()].map((g) => dirname(rubricFile(root, g.team, options.id, g.character))))) await removeStaleTemps(dir);

  const owner = new Map<string, Owned>();
  const { tasks, missing } = await planTasks(options, groups.values(), owner);
  const journal = new Journal(journalPath(root, options.id, 'rubric'));
  const prints = new Map(tasks.map((t) => [t.key, t.fingerprint]));
  const previous = journal.read((key) => prints.get(key)).attempts;

  const files: string[] = [];
  const writeGroup = async (group: LetterGroup) => {
    const trials = group.levels.filter((l) => group.records.has(l.name)).map((l) => group.records.get(l.name)!);
    if (trials.length === 0) return;
    const digests = [...new Set(trials.flatMap((t) => (t.calls ?? []).map((c) => c.digest).filter((d): d is string => d !== undefined)))].sort();
    const file: RubricLetterFile = {
      judge: 'rubric',
      id: options.id,
      team: group.team,
      character: group.character,
      settings: { ...group.settings, digests },
      complete: group.open === 0,
      summary: summarise(trials),
      trials,
    };
    const path = rubricFile(root, group.team, options.id, group.character);
    await writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`);
    if (!files.includes(path)) files.push(path);
  };
  const start = { judge: 'rubric', id: options.id, view: options.view, protocol: options.protocol, rubric: options.rubric.source, levels: levels.length };
  const run = await runJudge(
    root,
    'judge-rubric',
    RUBRIC_STAGE,
    start,
    { tasks, journal, previous, judge: options.judge, backend: options.backend, startedAt: options.startedAt },
    progress,
    async (r: TaskResult) => {
      if (r.status === 'unfinished') return;
      const own = owner.get(r.task.key)!;
      own.group.records.set(own.level.name, record(own, r.attempts, journal, options.lowTier));
      own.group.open -= 1;
      if (own.group.open === 0 && !r.cached) await writeGroup(own.group);
    },
    cancel,
  );
  for (const group of groups.values()) await writeGroup(group);
  const records = [...groups.values()].flatMap((g) => [...g.records.values()]);
  const failures = failureCounts({
    judged: records.filter((r) => r.status === 'judged').length,
    refused: records.filter((r) => r.status === 'refused').length,
    missing,
    unfinished: run.counts.unfinished,
  });
  const byTeam = new Map<string, number[]>();
  for (const g of groups.values()) {
    const list = byTeam.get(g.team) ?? [];
    for (const r of g.records.values()) list.push(r.score);
    byTeam.set(g.team, list);
  }
  const teams = [...byTeam].map(([team, scores]) => ({ team, levels: scores.length, ...meanInterval(scores, { seed: options.judge.seed }) }));
  return {
    counts: run.counts,
    teams,
    failures,
    files,
    logFile: run.logFile,
    stopped: run.stopped,
    inconsistent: records.filter((r) => r.consistent === false).length,
  };
}
