import { availableParallelism } from 'node:os';
import type { ReportInput, ReportSection } from '../../scoring/report/build.js';
import type { RuleSet } from '../../scoring/score/rules.js';
import type { ScoreInput } from '../../scoring/score/types.js';
import {
  type BootstrapResult,
  buildModel,
  finishBootstrap,
  INTERVALS_FILE,
  intervalsCsv,
  type OfficialRow,
  RANK_PROBABILITIES_FILE,
  type Rankings,
  rankProbabilitiesCsv,
  runBootstrap,
  type SampleOptions,
  type SectionContext,
  storedPerResample,
  summarize,
  type UncertaintyModel,
  type UncertaintySummary,
  uncertaintySection,
  withIntervals,
} from '../../scoring/uncertainty/index.js';
import type { Settings, UncertaintySettings } from '../config/settings.js';
import { trialIndexFromName } from '../layout/competition.js';
import { writeScoreFile } from '../result/files.js';
import { cachedRobustness, type LevelRobustnessResult, robustnessOptions } from './robustness.js';
import { prestartSampler, sampleInThread } from './uncertainty-thread.js';

/**
 * The ranking's uncertainty beside the official result files (scoring/uncertainty; docs/uncertainty.md):
 * `result/score_intervals.csv` and `result/rank_probabilities.csv`, a report section, and the sentence
 * the commands print — and, in the 2025 layout, the same for each model folder's own ranking, in its
 * own result folder (its official files rank it; its intervals come from the same resamples). Started
 * from what the official scoring read, before the official rankings exist (on a large folder the
 * resamples run in a worker thread meanwhile), finished with those rankings after the official files
 * are written, which it never changes. Off (`--uncertainty off`) or with T = 1 (nothing to resample) no intervals exist, and
 * files an earlier score left are removed with every other result file the step did not write
 * (orchestrator/result/files.ts), so `result/` never shows intervals of other data.
 */

export interface UncertaintyInput {
  /** The folder whose `result/` gets the files (the root). */
  dir: string;
  eol: string;
  settings: UncertaintySettings;
  /**
   * One competition, or one per model folder (2025), with what scoring read. `key` is the model folder
   * (undefined for a single competition), `dir` where its own result folder is.
   */
  competitions: ReadonlyArray<{ key: string | undefined; dir?: string; label: string; input: ScoreInput; rules: RuleSet }>;
  trials: number;
  competing: readonly string[];
  mustBeat?: string;
  words?: ReadonlyMap<string, number>;
  /** With `--robustness N`: the levels' perturbed runs (the run's results, or the cache's for `sbeval score`). */
  physics?: { runs: number; simulationTrials: number; levels: readonly LevelRobustnessResult[] };
}

/** The official rankings the bootstrap's figures are reported against (exact decimals as printed), best first. */
interface OfficialRankings {
  ranking: readonly OfficialRow[];
  /** With several model folders: each one's own ranking (its `result/prompt_scores_ranks.csv`), by competition. */
  perModel?: ReadonlyArray<readonly OfficialRow[]>;
}

/** A model folder's own ranking with its uncertainty (2025 layout), for its result folder and report. */
interface ModelUncertainty {
  key: string;
  /** The sentence about this model's own ranking. */
  message: string;
  summary: UncertaintySummary;
  section: ReportSection;
  files: string[];
}

export interface UncertaintyOutcome {
  status: 'done' | 'off' | 'unavailable';
  /** The quotable sentence, or why there are no intervals. */
  message: string;
  summary?: UncertaintySummary;
  section?: ReportSection;
  /** With model folders: each one's own ranking's uncertainty, from the same resamples. */
  perModel?: ModelUncertainty[];
  /** Files written (absolute). */
  files: string[];
  /** Whether the resamples ran in a worker thread while the official scoring ran (uncertainty-thread.ts). */
  threaded?: boolean;
}

/** A bootstrap started before the official rankings were known: `finish` completes it with them. */
export interface PendingUncertainty {
  finish(rankings: OfficialRankings): Promise<UncertaintyOutcome>;
  /** The caller will not finish it (scoring failed): stops its worker thread. */
  cancel(): void;
}

/**
 * Below this many team × letter cells × resamples the bootstrap runs in this thread after the
 * official scoring: a worker thread's start (a fresh V8 isolate, the bootstrap's modules loaded, the
 * model copied in) costs about what the bootstrap itself costs at that size — measured (`npm run
 * bench -- uncertainty`, docs/uncertainty.md "Cost"): 0.14–0.25 s wall for a thread's start with one
 * resample, about 0.3 µs per cell and resample for T = 10 once compiled (0.13–0.15 s for 260 cells ×
 * 2000 resamples). A command that will bootstrap a large folder starts the thread before it reads the
 * folder (`prestartUncertainty`), and the thread is kept for the process's next bootstrap.
 */
export const THREAD_MIN_WORK = 250_000;
/**
 * The worker keeps every resample's character scores until the rankings are known (bootstrap.ts
 * `sampleBootstrap`): beyond this many doubles (32 MiB) the bootstrap runs in this thread instead,
 * summing as it goes.
 */
const THREAD_MAX_STORED = 2 ** 22;

/** Moving counts of a level's perturbed runs by model folder, team, letter and trial index. */
function physicsLookup(
  levels: readonly LevelRobustnessResult[],
): (model: string | undefined, team: string, character: string, trial: number) => readonly number[] | undefined {
  const key = (model: string | undefined, team: string, character: string, trial: number) => JSON.stringify([model ?? '', team, character, trial]);
  const runs = new Map(levels.map((l) => [key(l.model, l.team, l.character, trialIndexFromName(l.base)), l.moving]));
  return (model, team, character, trial) => runs.get(key(model, team, character, trial));
}

function modelOf(input: UncertaintyInput): UncertaintyModel {
  const lookup = input.physics ? physicsLookup(input.physics.levels) : undefined;
  const competitions = input.competitions;
  return buildModel(
    competitions.map((c) => ({ label: c.label, input: c.input, rules: c.rules })),
    {
      // Perturbed runs are keyed by model folder; the label names the model in the report.
      ...(lookup ? { physics: (index, team, character, trial) => lookup(competitions[index]?.key, team, character, trial) } : {}),
      ...(input.physics ? { simulationTrials: input.physics.simulationTrials } : {}),
    },
  );
}

/** What the resamples need beyond the model: who can win each ranking, the tie-break. */
function sampleOptions(input: UncertaintyInput): SampleOptions {
  return {
    resamples: input.settings.resamples,
    seed: input.settings.seed,
    competing: input.competing,
    ...(input.mustBeat !== undefined ? { mustBeat: input.mustBeat } : {}),
    ...(input.words ? { words: input.words } : {}),
    // Each model folder's own ranking, as its official files rank it: no baseline to beat, no tie-break by words (score.ts scoreModelFolder).
    ...(input.competitions.length > 1 ? { perCompetition: input.competitions.map(() => ({ competing: input.competing })) } : {}),
  };
}

/** Enough team × letter cells × resamples for a thread, and a second core to run it beside this one. */
function enoughForThread(cells: number, resamples: number): boolean {
  return availableParallelism() >= 2 && cells * resamples >= THREAD_MIN_WORK;
}

/** A thread only where it can run beside this one (a second core) and its start is worth it. */
function threadWorthIt(model: UncertaintyModel, resamples: number): boolean {
  const cells = model.competitions.reduce((n, c) => n + c.packed.letters.length * c.teams.length, 0);
  return enoughForThread(cells, resamples) && storedPerResample(model) * resamples <= THREAD_MAX_STORED;
}

/**
 * Starts the bootstrap's thread before the folder is read (uncertainty-thread.ts), when the bootstrap
 * to come will run there: `cells` team × letter cells (counted from the folders, before any file is
 * read), T ≥ 2 and the bootstrap on. The thread's start then overlaps that reading.
 */
export function prestartUncertainty(settings: UncertaintySettings, trials: number, cells: number): void {
  if (settings.enabled && trials >= 2 && enoughForThread(cells, settings.resamples)) prestartSampler();
}

function settled(outcome: UncertaintyOutcome): PendingUncertainty {
  return { finish: async () => outcome, cancel: () => undefined };
}

/**
 * Starts the bootstrap from what the official scoring read, before its rankings exist: on a large
 * folder in a worker thread, so that it runs while this thread scores and writes the official files.
 */
export function startUncertainty(input: UncertaintyInput): PendingUncertainty {
  if (!input.settings.enabled) return settled({ status: 'off', message: 'uncertainty off (--uncertainty off): no intervals', files: [] });
  if (input.trials < 2) {
    return settled({
      status: 'unavailable',
      message: `with T = ${input.trials} trial per letter there is nothing to resample: intervals cannot be computed (none written)`,
      files: [],
    });
  }
  const model = modelOf(input);
  const options = sampleOptions(input);
  const thread = threadWorthIt(model, options.resamples) ? sampleInThread({ model, options }) : undefined;
  return {
    async finish(official) {
      const rankings: Rankings = {
        ranking: official.ranking.map((r) => r.team),
        ...(official.perModel ? { perCompetitionRanking: official.perModel.map((rows) => rows.map((r) => r.team)) } : {}),
      };
      const samples = await thread?.samples.catch(() => undefined);
      // Without a thread (or when it could not run), the same numbers here (tested).
      const result = samples ? finishBootstrap(model, samples, rankings) : runBootstrap(model, { ...options, ...rankings });
      return { ...(await writeOutcome(input, model, result, official)), threaded: samples !== undefined };
    },
    cancel: () => thread?.cancel(),
  };
}

/** The files, report sections and sentence of a finished bootstrap. */
async function writeOutcome(
  input: UncertaintyInput,
  model: UncertaintyModel,
  result: BootstrapResult,
  official: OfficialRankings,
): Promise<UncertaintyOutcome> {
  const { settings } = input;
  const context = (notes: readonly string[], perModel?: string): SectionContext => ({
    ...(input.physics ? { physics: { runs: input.physics.runs, trials: model.physicsTrials, simulationTrials: model.simulationTrials } } : {}),
    notes,
    ...(perModel !== undefined ? { perModel } : {}),
  });
  const summary = summarize(result, official.ranking, { competing: input.competing, ...(input.mustBeat !== undefined ? { mustBeat: input.mustBeat } : {}) });
  const files = await writeIntervalFiles(input.dir, summary, input.eol);
  const perModel: ModelUncertainty[] = [];
  for (const [m, own] of (result.perCompetition ?? []).entries()) {
    const competition = input.competitions[m];
    const rows = official.perModel?.[m];
    if (!competition?.key || !competition.dir || !rows) continue;
    const ownSummary = summarize(own, rows, { competing: input.competing });
    const notes = model.notes.filter((n) => n.startsWith(`${competition.label}/`));
    perModel.push({
      key: competition.key,
      message: ownSummary.sentence,
      summary: ownSummary,
      section: uncertaintySection(ownSummary, context(notes, competition.label)),
      files: await writeIntervalFiles(competition.dir, ownSummary, input.eol),
    });
  }
  return {
    status: 'done',
    message: `${summary.sentence} (${settings.resamples} resamples, seed ${settings.seed}; result/${INTERVALS_FILE}, result/${RANK_PROBABILITIES_FILE})`,
    summary,
    section: uncertaintySection(summary, context(model.notes)),
    ...(perModel.length > 0 ? { perModel } : {}),
    files: [...files, ...perModel.flatMap((m) => m.files)],
  };
}

async function writeIntervalFiles(dir: string, summary: UncertaintySummary, eol: string): Promise<string[]> {
  return [
    await writeScoreFile(dir, INTERVALS_FILE, intervalsCsv(summary, eol)),
    await writeScoreFile(dir, RANK_PROBABILITIES_FILE, rankProbabilitiesCsv(summary, eol)),
  ];
}

/**
 * A report with the uncertainty of its ranking (the top level's, or a model folder's own): the
 * sentence under the winner, the intervals on the ranking chart and the section (first among the
 * extra sections: it is about the ranking); without intervals, a fact line that says why.
 */
export function withUncertainty(report: ReportInput, outcome: Pick<UncertaintyOutcome, 'message' | 'summary' | 'section'>): ReportInput {
  const { summary, section } = outcome;
  return {
    ...report,
    // Done: the sentence goes under the winner; otherwise the facts say why there are no intervals.
    facts: summary ? report.facts : [...report.facts, `Uncertainty: ${outcome.message}`],
    ...(summary && report.winners
      ? { winners: { ...report.winners, notes: [...report.winners.notes, `Ranking uncertainty: ${summary.sentence} (see "Uncertainty of the ranking").`] } }
      : {}),
    ...(summary && report.rankingBars ? { rankingBars: withIntervals(report.rankingBars, summary) } : {}),
    sections: [...(section ? [section] : []), ...(report.sections ?? [])],
  };
}

/**
 * `sbeval score` with `--robustness N` (or `robustness: N` in the config): the perturbed runs the
 * simulate or run stage cached, valid for each level's XML and the simulate settings (nothing is
 * simulated here). Undefined without `--robustness`.
 */
export async function cachedPhysics(settings: Settings): Promise<UncertaintyInput['physics']> {
  const runs = settings.robustness;
  if (runs === undefined) return undefined;
  const levels: LevelRobustnessResult[] = [];
  for (const competition of settings.competitions) levels.push(...(await cachedRobustness(robustnessOptions(settings, competition, runs))));
  return { runs, simulationTrials: settings.simulationTrials, levels };
}
