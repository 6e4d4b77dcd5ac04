import { resolve } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { SbevalError } from '../../../core/errors.js';
import type { ScoreWarning } from '../../../scoring/score/checks.js';
import { isRuleSetName } from '../../../scoring/score/rules.js';
import { judgesReportSection } from '../../judges/report.js';
import { runScoreStage, type ScoreStageResult, type TeamOrder } from '../../stages/score.js';

/**
 * `sbeval score <root>`: official weights, scores and ranks (exact decimals) from the per-character
 * stability/similarity/diversity files, written to `<root>/result/` with a report.
 */

function collectList(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v.length > 0)];
}

interface ScoreFlags {
  rules: string;
  eol?: string;
  baseline?: string;
  notCompeting: string[];
  trials: string;
  prompts?: string;
  models: string[];
  teamOrder: string;
  json?: boolean;
}

function summary(result: ScoreStageResult): string {
  const lines = [`score (${result.rules} rules): competition score ${result.competitionScore}${result.models ? `, ${result.models.length} models (${result.models.join(', ')})` : ''}`];
  for (const r of result.ranking) lines.push(`  ${String(r.rank).padStart(2)}. ${r.team}  ${r.normalizedPromptScore}`);
  lines.push(result.winners.winners.length === 0 ? '  no winner' : `  ${result.winners.winners.length > 1 ? 'co-winners' : 'winner'}: ${result.winners.winners.join(', ')}`);
  for (const note of result.winners.notes) lines.push(`  ${note}`);
  lines.push(`  ${result.warnings.length} warning(s); results in ${result.resultDir} (report.md, report.html)`);
  return lines.join('\n');
}

function warningLine(w: ScoreWarning): string {
  return `score: warning [${w.code}] ${w.file && !w.message.includes(w.file) ? `${w.file}: ` : ''}${w.message}\n`;
}

export function registerScoreCommands(program: Command): void {
  program
    .command('score')
    .description('Official weights, scores and ranks from <root>/<team>/{stability,similarity,diversity}/<C>.json into <root>/result/')
    .argument('<root>', 'competition folder (2025: a folder holding one competition folder per model)')
    .addOption(new Option('--rules <year>', 'rule set').choices(['2023', '2024', '2025']).default('2024'))
    .addOption(new Option('--eol <eol>', 'CSV line ends (default: as published — 2023 lf, 2024/2025 crlf)').choices(['lf', 'crlf']))
    .option('--baseline <team>', 'zero-shot baseline team folder: never wins; under 2025 rules the winner must beat it')
    .option('--not-competing <teams>', 'more entries that count in P but cannot win, e.g. the strong baseline (comma-separated, repeatable)', collectList, [])
    .option('--trials <n>', 'trials per character (T)', '10')
    .option('--prompts <dir>', 'folder of <team>.txt (or any <team>.<ext>) prompt/program files: equal scores go to the shorter prompt (2023 word count)')
    .option('--models <names>', '2025: model names in order (folders via the model-folder mapping); default: detect the model folders', collectList, [])
    .addOption(new Option('--team-order <order>', 'team order in the CSV files: name = case-insensitive (published 2024, 2023 character scores), bytes = code points (2023 trial scores)').choices(['name', 'bytes']).default('name'))
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      `
Layout: <root>/<team>/stability/<C>.json, similarity/<C>.json, diversity/<C>.json (2023: no diversity).
2025: <root>/<model-folder>/<team>/...; each model folder gets its own result/, the sum over models goes to <root>/result/.
Outputs: constants.json, trial_scores.csv, character_scores.csv, prompt_scores_ranks.csv (official formats),
report.md and report.html (heat maps), log in <root>/logs/result_log_<time>.txt. Inconsistent inputs are warnings, never a silent stop.`,
    )
    .action(async (root: string, flags: ScoreFlags) => {
      if (!isRuleSetName(flags.rules)) throw new SbevalError('config', `unknown rule set ${flags.rules}`);
      const trials = Number(flags.trials);
      if (!Number.isSafeInteger(trials) || trials < 1) throw new SbevalError('config', `--trials must be a positive integer, got ${flags.trials}`);
      if (flags.models.length > 0 && flags.rules !== '2025') throw new SbevalError('config', '--models is only used with --rules 2025');
      const result = await runScoreStage({
        root,
        rules: flags.rules,
        ...(flags.eol ? { eol: flags.eol === 'crlf' ? '\r\n' : '\n' } : {}),
        ...(flags.baseline !== undefined ? { baseline: flags.baseline } : {}),
        nonCompeting: flags.notCompeting,
        trials,
        ...(flags.prompts !== undefined ? { promptsDir: flags.prompts } : {}),
        ...(flags.models.length > 0 ? { models: flags.models } : {}),
        teamOrder: flags.teamOrder as TeamOrder,
        // Judges beyond the ViT, when the folder holds their results (sbeval judge / survey).
        sections: [judgesReportSection(resolve(root), { rules: flags.rules, trials })].filter((x) => x !== undefined),
      });
      for (const w of result.warnings) process.stderr.write(warningLine(w));
      if (flags.json) {
        process.stdout.write(
          `${JSON.stringify({ rules: result.rules, competitionScore: result.competitionScore, ranking: result.ranking, winners: result.winners.winners, notes: result.winners.notes, warnings: result.warnings, files: result.files, models: result.models ?? null }, null, 2)}\n`,
        );
      } else process.stdout.write(`${summary(result)}\n`);
    });
}
