import type { Command } from 'commander';
import { printable } from '../../core/printable.js';
import { CONFIG_SCHEMA } from '../../llm/config.js';
import { GENERATE_STAGE } from '../../llm/generate/run-stage.js';
import { LLM_RESULT_CONTRIBUTORS } from '../../llm/result-contributors.js';
import { CONFIG_FILES, limitsSchema, settingsRecord, submissionSchema } from '../../orchestrator/config/index.js';
import { createProgressDisplay, formatSummaryLines } from '../../orchestrator/progress/index.js';
import { isUnfinished, MODEL_HINT, type RunReport, runCompetition, unfinishedLines } from '../../orchestrator/run/index.js';
import { rankingLines } from '../../orchestrator/stages/score-report.js';
import type { ScoreWarning } from '../../scoring/score/checks.js';
import { option, wrapHelp } from '../options.js';
import { addSettingsOptions, commandSettings, type SharedFlags } from '../settings-options.js';
import { modelLabel } from '../stage-output.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/**
 * `sbeval run <root>`: the whole competition, raw responses (or submissions) → `result/`, resumable.
 */
const EXIT_CANCELLED = 130;
/** Some levels could not be finished (never exit 0 after losing levels: docs/reliability.md). */
const EXIT_UNFINISHED = 1;

interface RunCommandFlags extends SharedFlags {
  json?: boolean;
  listen?: string;
  tokenFile?: string;
  allowPrograms?: boolean;
}

/** The config file's keys as the schema has them (llm/config.ts), wrapped for --help. */
function configKeysHelp(): string {
  const keys = Object.keys(CONFIG_SCHEMA.shape).map((key) =>
    key === 'limits'
      ? `limits {${Object.keys(limitsSchema.shape).join(', ')}}`
      : key === 'submissions'
        ? `submissions [{${Object.keys(submissionSchema.shape).join(', ')}}]`
        : key,
  );
  return wrapHelp(`  ${keys.join(', ')}`, 100).replace(/\n {4}/g, '\n  ');
}

export function registerRunCommands(program: Command): void {
  const run = program
    .command('run')
    .description(COMMAND_SUMMARIES.run)
    .argument('<root>', 'competition folder (<root>/<team>/raw/<C>/<team>_<C>_<n>.txt; or levels/, intermediate/ …)');
  addSettingsOptions(run, ['rules', 'trials', 'chars', 'team', 'model', 'engine', 'workers', 'traces', 'eol', 'robustness', 'uncertainty'])
    .option('--json', 'machine-readable progress: one JSON object per line on stdout')
    .addOption(
      option('--listen <host:port>', 'engine bridge: where engines dial in (0.0.0.0:8765 for other machines, which needs a shared token)', {
        defaultText: "the config's listen, else 127.0.0.1:0, this machine only",
      }),
    )
    .addOption(
      option('--token-file <file>', 'engine bridge: the token engines must present, first line of this file', {
        defaultText: "the config's tokenFile, else SBEVAL_TOKEN; on loopback a fresh one is written to <root>/.sbeval/bridge-token",
      }),
    )
    .option(
      '--allow-programs',
      "run the program submissions the root's config lists (without it a run that would start one stops at once, exit 2, and names them)",
    )
    .addHelpText(
      'after',
      `
Settings may also come from ${CONFIG_FILES.join(' / ')} at the competition root (flags win; every
stage command reads the same file, so stage by stage gives the same files as run):
${configKeysHelp()}
Without a similarity model, similarity, diversity and the score are skipped (sbeval model fetch).

A run can be stopped at any moment (Ctrl-C, a crash, SIGKILL) and started again: finished work is kept
in the official folders and in <root>/.sbeval/, and the second run ends with the same files.
Outputs: the official stage folders, <root>/result/ (scores; trials.csv and failures.md for every
trial's fate), <root>/logs/ (the official logs of extract, convert, simulate (stability: one line per
level, its final verdict), similarity, diversity and score; and run_<time>.jsonl with every level's
transitions).
Exit codes: 0 every level was finished (trials may have failed with a verdict: see result/trials.csv),
1 some levels could not be finished (engines failed past their retries, timeouts; the summary says how
many and why; run again to retry them), 2 usage or setup error (a folder that is not a competition
root, a bad setting), 130 cancelled.`,
    )
    .action(runAction);
}

async function runAction(root: string, flags: RunCommandFlags): Promise<void> {
  const config = commandSettings('run', root, flags);
  if (config.json) process.stdout.write(`${JSON.stringify({ type: 'settings', ...settingsRecord(config) })}\n`);
  const display = createProgressDisplay({ json: config.json });
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts > 1) process.exit(EXIT_CANCELLED);
    process.stderr.write(`\nsbeval: ${signal}: stopping after the levels in flight (again to quit at once); finished work is kept\n`);
    controller.abort(new Error(signal));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let report: RunReport;
  try {
    report = await runCompetition({
      config,
      progress: display,
      signal: controller.signal,
      allowPrograms: flags.allowPrograms === true,
      generate: GENERATE_STAGE,
      contributors: LLM_RESULT_CONTRIBUTORS,
    });
  } finally {
    display.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (config.json) {
    process.stdout.write(`${JSON.stringify({ type: 'summary', ...summaryRecord(report) })}\n`);
  } else {
    process.stdout.write(`${formatReport(report, formatSummaryLines(display.tallies(), Date.now()))}\n`);
  }
  if (report.cancelled) process.exitCode = EXIT_CANCELLED;
  else if (isUnfinished(report.unfinished)) process.exitCode = EXIT_UNFINISHED;
}

function summaryRecord(report: RunReport) {
  return {
    root: report.root,
    cancelled: report.cancelled,
    levels: report.levels,
    unfinished: report.unfinished,
    engines: report.engines,
    stages: report.stages.map(({ stage, model, status, detail }) => ({ stage, ...(model === undefined ? {} : { model }), status, detail })),
    warnings: report.warnings.map((w) => w.message),
    trialsCsv: report.trialsCsv,
    runLog: report.runLog,
    ranking: report.ranking ?? null,
    winners: report.winners ? { winners: report.winners.winners, notes: report.winners.notes } : null,
  };
}

/** A warning as the run printed it (stage warnings carry their stage; score warnings their code and file). */
function warningText(w: ScoreWarning): string {
  const text = `${w.file && !w.message.includes(w.file) ? `${w.file}: ` : ''}${w.message}`;
  return w.code === 'run' ? text : `warning [${w.code}] ${text}`;
}

/**
 * The end of the summary: every warning the run printed, again, then the ranking and the winner — or
 * why there is none — so the last lines of a long run say what it decided (docs/report-truth.md).
 */
function closingLines(report: RunReport): string[] {
  const lines: string[] = [];
  if (report.warnings.length === 0) lines.push('warnings: none');
  else {
    const where = report.stages.some((s) => s.stage === 'report') ? ', also listed in result/report.md' : '';
    lines.push(`${report.warnings.length} warning(s), as printed above${where}:`, ...report.warnings.map((w) => `  - ${warningText(w)}`));
  }
  if (report.ranking && report.winners)
    lines.push(`ranking (result/prompt_scores_ranks.csv, normalized prompt score):`, ...rankingLines(report.ranking, report.winners, report.similarityModel));
  else if (report.cancelled) lines.push('ranking: none — the run was cancelled before scoring');
  else if (!report.similarity) lines.push(`ranking: none — no similarity model, so no scores (\`${MODEL_HINT}\`, then run again)`);
  else lines.push('ranking: none — the score stage did not run');
  return lines;
}

/**
 * The trials in one line whose counts add up to the total: done now, already done, failed, not run
 * (stopped before they started), outside --team/--chars; then the work behind them.
 */
function levelsLine(report: RunReport): string {
  const { total, simulated, cached, failed, retries, outside, notRun, beyondT } = report.levels;
  const done = total - cached - failed - notRun - outside;
  const why = report.trials.length > 0 ? ' (why: result/trials.csv)' : ' (why: the run log)';
  const parts = [`${done} done now`, `${cached} already done by an earlier run`, `${failed} failed${failed > 0 ? why : ''}`];
  if (notRun > 0) parts.push(`${notRun} not run: interrupted before they started (run the same command to do them)`);
  if (outside > 0) parts.push(`${outside} outside --team/--chars`);
  // Files numbered beyond T go through the stages but are no trials (no rows of trials.csv): named apart.
  const what = beyondT > 0 ? `${total - beyondT} trials and ${beyondT} file(s) numbered beyond T` : `${total} trials`;
  return `levels: ${what}: ${parts.join(', ')}; ${simulated} simulated now, ${retries} engine retries`;
}

function formatReport(report: RunReport, tallies: string[]): string {
  const head = report.cancelled
    ? 'sbeval run: cancelled; run the same command again to continue'
    : isUnfinished(report.unfinished)
      ? 'sbeval run: stopped with unfinished levels (see below); run the same command again to retry them'
      : 'sbeval run: finished';
  const lines = [head, ...tallies, ''];
  // On a 2025 root every folder stage runs once per model folder: each row names its model.
  for (const stage of report.stages) lines.push(`${modelLabel(stage.model)}${stage.stage.padEnd(12)} ${stage.status.padEnd(11)} ${stage.detail}`);
  lines.push('', levelsLine(report));
  if (report.levels.outside > 0)
    lines.push(`${report.levels.outside} trial(s) outside --team/--chars were not worked on: result/trials.csv shows them as the folder has them`);
  const { retired, replaced, replaceFailed } = report.engines;
  if (retired > 0) lines.push(`engines: ${retired} retired, ${replaced} replaced${replaceFailed > 0 ? `, ${replaceFailed} could not be replaced` : ''}`);
  lines.push(...unfinishedLines(report.unfinished));
  if (report.trials.length > 0) lines.push(`every trial's fate: ${report.trialsCsv}`);
  lines.push(`run log: ${report.runLog}`, '', ...closingLines(report));
  // Reasons, warnings and names in these lines carry engines' and files' text: escaped, line by line.
  return lines.map((line) => printable(line, { lines: true })).join('\n');
}
