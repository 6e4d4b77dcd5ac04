import type { ReportInput, ReportSection } from '../../scoring/report/build.js';
import type { RuleSet } from '../../scoring/score/rules.js';
import type { ScoreInput } from '../../scoring/score/types.js';
import { buildModel, intervalsCsv, INTERVALS_FILE, RANK_PROBABILITIES_FILE, rankProbabilitiesCsv, runBootstrap, summarize, uncertaintySection, withIntervals, type UncertaintySummary } from '../../scoring/uncertainty/index.js';
import type { Settings, UncertaintySettings } from '../config/settings.js';
import { trialIndexFromName } from '../layout/competition.js';
import { writeScoreFile } from '../result/files.js';
import { cachedRobustness, robustnessOptions, type LevelRobustnessResult } from './robustness.js';

/**
 * The ranking's uncertainty beside the official result files (scoring/uncertainty; docs/uncertainty.md):
 * `result/score_intervals.csv` and `result/rank_probabilities.csv`, a report section, and the sentence
 * the commands print. Computed from what the official scoring read, after it wrote its files, which it
 * never changes. Off (`--uncertainty off`) or with T = 1 (nothing to resample) no intervals exist, and
 * files an earlier score left are removed with every other result file the step did not write
 * (orchestrator/result/files.ts), so `result/` never shows intervals of other data.
 */

export interface UncertaintyInput {
  /** The folder whose `result/` gets the files (the root). */
  dir: string;
  eol: string;
  settings: UncertaintySettings;
  /** One competition, or one per model folder (2025), with what scoring read. `key` is the model folder (undefined for a single competition). */
  competitions: ReadonlyArray<{ key: string | undefined; label: string; input: ScoreInput; rules: RuleSet }>;
  trials: number;
  /** The official top-level ranking, best first (exact decimals as printed). */
  ranking: ReadonlyArray<{ team: string; rank: number; promptScore: string; normalizedPromptScore: string }>;
  competing: readonly string[];
  mustBeat?: string;
  words?: ReadonlyMap<string, number>;
  /** With `--robustness N`: the levels' perturbed runs (the run's results, or the cache's for `sbeval score`). */
  physics?: { runs: number; simulationTrials: number; levels: readonly LevelRobustnessResult[] };
}

export interface UncertaintyOutcome {
  status: 'done' | 'off' | 'unavailable';
  /** The quotable sentence, or why there are no intervals. */
  message: string;
  summary?: UncertaintySummary;
  section?: ReportSection;
  /** Files written (absolute). */
  files: string[];
}

/** Moving counts of a level's perturbed runs by model folder, team, letter and trial index. */
function physicsLookup(levels: readonly LevelRobustnessResult[]): (model: string | undefined, team: string, character: string, trial: number) => readonly number[] | undefined {
  const key = (model: string | undefined, team: string, character: string, trial: number) => JSON.stringify([model ?? '', team, character, trial]);
  const runs = new Map(levels.map((l) => [key(l.model, l.team, l.character, trialIndexFromName(l.base)), l.moving]));
  return (model, team, character, trial) => runs.get(key(model, team, character, trial));
}


export async function runUncertainty(input: UncertaintyInput): Promise<UncertaintyOutcome> {
  const { settings } = input;
  if (!settings.enabled) {
    return { status: 'off', message: 'uncertainty off (--uncertainty off): no intervals', files: [] };
  }
  if (input.trials < 2) {
    return { status: 'unavailable', message: `with T = ${input.trials} trial per letter there is nothing to resample: intervals cannot be computed (none written)`, files: [] };
  }
  const lookup = input.physics ? physicsLookup(input.physics.levels) : undefined;
  const competitions = input.competitions;
  const model = buildModel(
    competitions.map((c) => ({ label: c.label, input: c.input, rules: c.rules })),
    {
      // Perturbed runs are keyed by model folder; the label names the model in the report.
      ...(lookup ? { physics: (index, team, character, trial) => lookup(competitions[index]?.key, team, character, trial) } : {}),
      ...(input.physics ? { simulationTrials: input.physics.simulationTrials } : {}),
    },
  );
  const result = runBootstrap(model, {
    resamples: settings.resamples,
    seed: settings.seed,
    ranking: input.ranking.map((r) => r.team),
    competing: input.competing,
    ...(input.mustBeat !== undefined ? { mustBeat: input.mustBeat } : {}),
    ...(input.words ? { words: input.words } : {}),
  });
  const summary = summarize(result, input.ranking, { competingOnly: input.competing.length < model.teams.length });
  const files: string[] = [];
  for (const [name, text] of [
    [INTERVALS_FILE, intervalsCsv(summary, input.eol)],
    [RANK_PROBABILITIES_FILE, rankProbabilitiesCsv(summary, input.eol)],
  ] as const) {
    files.push(await writeScoreFile(input.dir, name, text));
  }
  const section = uncertaintySection(summary, {
    ...(input.physics ? { physics: { runs: input.physics.runs, trials: model.physicsTrials, simulationTrials: model.simulationTrials } } : {}),
    notes: model.notes,
  });
  return { status: 'done', message: `${summary.sentence} (${settings.resamples} resamples, seed ${settings.seed}; result/${INTERVALS_FILE}, result/${RANK_PROBABILITIES_FILE})`, summary, section, files };
}

/**
 * The top-level report with the uncertainty: the sentence under the winner, the intervals on the
 * ranking chart and the section (first among the extra sections: it is about the ranking); without
 * intervals, a fact line that says why.
 */
export function withUncertainty(report: ReportInput, outcome: UncertaintyOutcome): ReportInput {
  const { summary, section } = outcome;
  return {
    ...report,
    // Done: the sentence goes under the winner; otherwise the facts say why there are no intervals.
    facts: summary ? report.facts : [...report.facts, `Uncertainty: ${outcome.message}`],
    ...(summary && report.winners ? { winners: { ...report.winners, notes: [...report.winners.notes, `Ranking uncertainty: ${summary.sentence} (see "Uncertainty of the ranking").`] } } : {}),
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
