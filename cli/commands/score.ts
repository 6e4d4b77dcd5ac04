import type { Command } from 'commander';
import { SbevalError } from '../../core/errors.js';
import { LLM_RESULT_CONTRIBUTORS } from '../../llm/result-contributors.js';
import type { Settings } from '../../orchestrator/config/index.js';
import { teamsFound } from '../../orchestrator/config/subset.js';
import { recordedModelText } from '../../orchestrator/report/settings.js';
import { readScoreFolder, type ScoreStageOptions, type TeamOrder } from '../../orchestrator/stages/score.js';
import { rankingLines } from '../../orchestrator/stages/score-report.js';
import { type ScoreStageResult, scoreResults, stageResult } from '../../orchestrator/stages/score-stage.js';
import { cachedPhysics, prestartUncertainty } from '../../orchestrator/stages/uncertainty.js';
import type { ScoreWarning } from '../../scoring/score/checks.js';
import { CHARACTERS } from '../../scoring/score/rules.js';
import { stopOnInterrupt } from '../interrupt.js';
import { list, option, wholeNumber } from '../options.js';
import { addSettingsOptions, commandSettings, type SharedFlags } from '../settings-options.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/**
 * `sbeval score <root>`: official weights, scores and ranks (exact decimals) from the per-character
 * stability/similarity/diversity files, written to `<root>/result/` with a report.
 */

interface ScoreFlags extends SharedFlags {
  baseline?: string;
  notCompeting?: string[];
  prompts?: string;
  teamOrder: string;
  json?: boolean;
}

function summary(result: ScoreStageResult, model: string): string {
  const lines = [
    `score (${result.rules} rules): competition score ${result.competitionScore}${result.models ? `, ${result.models.length} models (${result.models.join(', ')})` : ''}`,
  ];
  lines.push(...rankingLines(result.ranking, result.winners, model));
  lines.push(`  uncertainty: ${result.uncertainty.message}`);
  lines.push(`  ${result.warnings.length} warning(s); results in ${result.resultDir} (report.md, report.html)`);
  return lines.join('\n');
}

function warningLine(w: ScoreWarning): string {
  return `score: warning [${w.code}] ${w.file && !w.message.includes(w.file) ? `${w.file}: ` : ''}${w.message}\n`;
}

/** The options of the score stage from the settings and the flags. */
async function scoreOptions(settings: Settings, flags: ScoreFlags): Promise<ScoreStageOptions> {
  const physics = await cachedPhysics(settings);
  if (physics && physics.levels.length === 0)
    process.stderr.write(
      `score: note: no perturbed runs (${physics.runs} per level) in the cache: the bootstrap varies the trials only (make them with sbeval simulate --robustness ${physics.runs})\n`,
    );
  return {
    root: settings.root,
    rules: settings.rules,
    eol: settings.eol,
    ...(flags.baseline !== undefined ? { baseline: flags.baseline } : {}),
    nonCompeting: flags.notCompeting ?? [],
    trials: settings.trials,
    ...(flags.prompts !== undefined ? { promptsDir: flags.prompts } : {}),
    ...(settings.models.length > 1 ? { models: settings.models.map((m) => m.name) } : {}),
    teamOrder: flags.teamOrder as TeamOrder,
    // The competition's letters (the config's), never a --chars subset: the report describes the folder.
    ...(settings.competitionLetters ? { letters: settings.competitionLetters } : {}),
    uncertainty: settings.uncertainty,
    ...(physics ? { physics } : {}),
  };
}

/** The one step that writes `result/`, as `sbeval run`'s (orchestrator/result/step.ts). */
async function scoreFolder(settings: Settings, options: ScoreStageOptions) {
  const interrupt = stopOnInterrupt('score');
  try {
    // Read first: the bootstrap's resamples run in their thread while the folder is checked (docs/uncertainty.md "Cost").
    return await scoreResults(settings, options, LLM_RESULT_CONTRIBUTORS, readScoreFolder(options));
  } finally {
    interrupt.finish();
  }
}

async function scoreAction(root: string, flags: ScoreFlags): Promise<void> {
  const settings = commandSettings('score', root, flags);
  // The bootstrap's thread starts while the folder is read (orchestrator/stages/uncertainty-thread.ts).
  const cells = teamsFound(settings.root, settings.layout).length * (settings.competitionLetters ?? CHARACTERS).length * settings.competitions.length;
  prestartUncertainty(settings.uncertainty, settings.trials, cells);
  const options = await scoreOptions(settings, flags);
  assertNamedTeams(settings, options);
  const outcome = await scoreFolder(settings, options);
  const removed = outcome.removed.length > 0 ? `; removed ${outcome.removed.join(', ')}, which described an earlier state of the folder` : '';
  for (const w of outcome.accountingWarnings) process.stderr.write(warningLine(w));
  if (!outcome.scored || outcome.status === 'blocked') {
    const reason = outcome.manifest.score.written ? 'nothing to score' : outcome.manifest.score.reason;
    if (flags.json) process.stdout.write(`${JSON.stringify({ scored: false, reason, blockers: outcome.blockers, removed: outcome.removed }, null, 2)}\n`);
    process.stderr.write(`sbeval: [score] not scored, the folder cannot be scored as it is: ${reason}${removed}\n`);
    process.exitCode = EXIT_NOT_SCORED;
    return;
  }
  const scored = outcome.scored;
  const staged = stageResult(
    scored,
    outcome.files.filter((f) => !scored.files.includes(f)),
  );
  const result = { ...staged, warnings: [...staged.warnings, ...outcome.reportWarnings, ...outcome.accountingWarnings] };
  for (const w of [...staged.warnings, ...outcome.reportWarnings]) process.stderr.write(warningLine(w));
  if (removed) process.stderr.write(`score: ${removed.slice(2)}\n`);
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ rules: result.rules, competitionScore: result.competitionScore, ranking: result.ranking, winners: result.winners.winners, notes: result.winners.notes, warnings: result.warnings, files: result.files, models: result.models ?? null, uncertainty: result.uncertainty }, null, 2)}\n`,
    );
  } else process.stdout.write(`${summary(result, recordedModelText(outcome.manifest.identity.similarityModel))}\n`);
}

export function registerScoreCommands(program: Command): void {
  const score = program
    .command('score')
    .description(COMMAND_SUMMARIES.score)
    .argument('<root>', 'competition folder (2025: a folder holding one competition folder per model)');
  addSettingsOptions(score, ['rules', 'trials', 'eol', 'models', 'uncertainty', 'engine', 'simTrials', 'damage'])
    .addOption(
      option(
        '--robustness <n>',
        "the uncertainty bootstrap also draws each level's stability from its N perturbed runs, as `sbeval simulate --robustness N` or `sbeval run --robustness N` cached them (nothing is simulated here), and result/robustness.csv lists them",
        { parse: wholeNumber(1, 10_000) },
      ),
    )
    .addOption(option('--baseline <team>', 'zero-shot baseline team folder: never wins; under 2025 rules the winner must beat it'))
    .addOption(
      option('--not-competing <teams>', 'more entries that count in P but cannot win, e.g. the strong baseline (comma-separated, repeatable)', { parse: list }),
    )
    .addOption(
      option('--prompts <dir>', 'folder of <team>.txt (or any <team>.<ext>) prompt/program files: equal scores go to the shorter prompt (2023 word count)'),
    )
    .addOption(
      option(
        '--team-order <order>',
        'team order in the CSV files: name = case-insensitive (published 2024, 2023 character scores), bytes = code points (2023 trial scores)',
        { choices: ['name', 'bytes'], default: 'name' },
      ),
    )
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      `
Layout: <root>/<team>/stability/<C>.json, similarity/<C>.json, diversity/<C>.json (2023: no diversity).
2025: <root>/<model-folder>/<team>/...; each model folder gets its own result/, the sum over models goes to <root>/result/.
Outputs: constants.json, trial_scores.csv, character_scores.csv, prompt_scores_ranks.csv (official formats),
report.md and report.html (heat maps), manifest.json (what they were computed from; sbeval check compares
it with the folder), log in <root>/logs/result_log_<time>.txt. Inconsistent inputs are warnings, never a
silent stop. A folder whose stage files do not match their inputs (images without similarity, levels
changed since they were simulated, levels simulated with other settings than this command's --engine,
--sim-trials and --damage or the config's, …) is not scored: exit 1 with the reason, and the result files
of an earlier state are removed (docs/result-folder.md).
With T ≥ 2 (unless --uncertainty off): score_intervals.csv and rank_probabilities.csv, a seeded bootstrap over
trials that scores every resample the official way (docs/uncertainty.md); the official files are unchanged.`,
    )
    .action(scoreAction);
}

/** Work the stages before scoring have not finished (exit 1, as for `run`'s unfinished levels). */
const EXIT_NOT_SCORED = 1;

/**
 * `--baseline` and `--not-competing` name teams of the folder: a name that matches none is a usage error
 * naming the teams (it used to be a warning, and the baseline rule then silently did not apply).
 */
function assertNamedTeams(settings: Settings, options: ScoreStageOptions): void {
  const known = teamsFound(settings.root, settings.layout);
  const named = [
    ...(options.baseline !== undefined ? [['--baseline', options.baseline]] : []),
    ...(options.nonCompeting ?? []).map((t) => ['--not-competing', t]),
  ];
  for (const [flag, team] of named) {
    if (!known.includes(team!))
      throw new SbevalError('config', `${flag} ${team}: no such team folder in ${settings.root}`, `the teams are ${known.join(', ')}`);
  }
}
