import type { Command } from 'commander';
import { Option } from 'commander';
import type { ScoreWarning } from '../../../scoring/score/checks.js';
import { judgesReportSection } from '../../judges/report.js';
import { runScoreStage, type ScoreStageResult, type TeamOrder } from '../../stages/score.js';
import { stopOnInterrupt } from '../interrupt.js';
import { addSettingsOptions, collectList, commandSettings, intIn, type SharedFlags } from '../settings-options.js';
import { cachedPhysics } from '../../stages/uncertainty.js';

/**
 * `sbeval score <root>`: official weights, scores and ranks (exact decimals) from the per-character
 * stability/similarity/diversity files, written to `<root>/result/` with a report.
 */

interface ScoreFlags extends SharedFlags {
  baseline?: string;
  notCompeting: string[];
  prompts?: string;
  teamOrder: string;
  json?: boolean;
}

function summary(result: ScoreStageResult): string {
  const lines = [`score (${result.rules} rules): competition score ${result.competitionScore}${result.models ? `, ${result.models.length} models (${result.models.join(', ')})` : ''}`];
  for (const r of result.ranking) lines.push(`  ${String(r.rank).padStart(2)}. ${r.team}  ${r.normalizedPromptScore}`);
  lines.push(result.winners.winners.length === 0 ? '  no winner' : `  ${result.winners.winners.length > 1 ? 'co-winners' : 'winner'}: ${result.winners.winners.join(', ')}`);
  for (const note of result.winners.notes) lines.push(`  ${note}`);
  lines.push(`  uncertainty: ${result.uncertainty.message}`);
  lines.push(`  ${result.warnings.length} warning(s); results in ${result.resultDir} (report.md, report.html)`);
  return lines.join('\n');
}

function warningLine(w: ScoreWarning): string {
  return `score: warning [${w.code}] ${w.file && !w.message.includes(w.file) ? `${w.file}: ` : ''}${w.message}\n`;
}

export function registerScoreCommands(program: Command): void {
  const score = program
    .command('score')
    .description('Official weights, scores and ranks from <root>/<team>/{stability,similarity,diversity}/<C>.json into <root>/result/')
    .argument('<root>', 'competition folder (2025: a folder holding one competition folder per model)');
  addSettingsOptions(score, ['rules', 'trials', 'eol', 'models', 'uncertainty', 'simTrials', 'damage'])
    .addOption(
      new Option('--robustness <n>', 'the uncertainty bootstrap also draws each level\'s stability from its N perturbed runs, as `sbeval simulate --robustness N` or `sbeval run --robustness N` cached them (nothing is simulated here)').argParser(intIn(1, 10_000)),
    )
    .option('--baseline <team>', 'zero-shot baseline team folder: never wins; under 2025 rules the winner must beat it')
    .option('--not-competing <teams>', 'more entries that count in P but cannot win, e.g. the strong baseline (comma-separated, repeatable)', collectList, [])
    .option('--prompts <dir>', 'folder of <team>.txt (or any <team>.<ext>) prompt/program files: equal scores go to the shorter prompt (2023 word count)')
    .addOption(new Option('--team-order <order>', 'team order in the CSV files: name = case-insensitive (published 2024, 2023 character scores), bytes = code points (2023 trial scores)').choices(['name', 'bytes']).default('name'))
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      `
Layout: <root>/<team>/stability/<C>.json, similarity/<C>.json, diversity/<C>.json (2023: no diversity).
2025: <root>/<model-folder>/<team>/...; each model folder gets its own result/, the sum over models goes to <root>/result/.
Outputs: constants.json, trial_scores.csv, character_scores.csv, prompt_scores_ranks.csv (official formats),
report.md and report.html (heat maps), log in <root>/logs/result_log_<time>.txt. Inconsistent inputs are warnings, never a silent stop.
With T ≥ 2 (unless --uncertainty off): score_intervals.csv and rank_probabilities.csv, a seeded bootstrap over
trials that scores every resample the official way (docs/uncertainty.md); the official files are unchanged.`,
    )
    .action(async (root: string, flags: ScoreFlags) => {
      const settings = commandSettings('score', root, flags);
      const interrupt = stopOnInterrupt('score');
      let result: ScoreStageResult;
      try {
        const physics = await cachedPhysics(settings);
        if (physics && physics.levels.length === 0) process.stderr.write(`score: note: no perturbed runs (${physics.runs} per level) in the cache: the bootstrap varies the trials only (make them with sbeval simulate --robustness ${physics.runs})\n`);
        result = await runScoreStage({
          root: settings.root,
          rules: settings.rules,
          eol: settings.eol,
          ...(flags.baseline !== undefined ? { baseline: flags.baseline } : {}),
          nonCompeting: flags.notCompeting,
          trials: settings.trials,
          ...(flags.prompts !== undefined ? { promptsDir: flags.prompts } : {}),
          ...(settings.models.length > 1 ? { models: settings.models.map((m) => m.name) } : {}),
          teamOrder: flags.teamOrder as TeamOrder,
          // Judges beyond the ViT, when the folder holds their results (sbeval judge / survey).
          sections: [judgesReportSection(settings.root, { rules: settings.rules, trials: settings.trials })].filter((x) => x !== undefined),
          uncertainty: settings.uncertainty,
          ...(physics ? { physics } : {}),
        });
      } finally {
        interrupt.finish();
      }
      for (const w of result.warnings) process.stderr.write(warningLine(w));
      if (flags.json) {
        process.stdout.write(
          `${JSON.stringify({ rules: result.rules, competitionScore: result.competitionScore, ranking: result.ranking, winners: result.winners.winners, notes: result.winners.notes, warnings: result.warnings, files: result.files, models: result.models ?? null, uncertainty: result.uncertainty }, null, 2)}\n`,
        );
      } else process.stdout.write(`${summary(result)}\n`);
    });
}
