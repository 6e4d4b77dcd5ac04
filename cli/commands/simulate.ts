import type { Command } from 'commander';
import { type Settings, stageFilter } from '../../orchestrator/config/index.js';
import { formatSummary } from '../../orchestrator/layout/stage-log.js';
import type { ProgressSink } from '../../orchestrator/progress/types.js';
import { type RobustnessSummary, runRobustnessStage } from '../../orchestrator/stages/robustness.js';
import { ruleFrom, runSimulateStage, type SimulateSummary } from '../../orchestrator/stages/simulate.js';
import { formatMovingRange, formatStableShare } from '../../scoring/robustness.js';
import { EXIT_CHECK_FAILED } from '../exit-codes.js';
import { stopOnInterrupt } from '../interrupt.js';
import { addSettingsOptions, commandSettings, type SharedFlags } from '../settings-options.js';
import { didNothing, modelLabel, nothingToDo } from '../stage-output.js';
import { physicsOptions, simTrialsOf } from './physics-options.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/** `sbeval simulate <root>`: the evaluator's batch stability + image runs over the competition layout. */

/** A live counter on a terminal's stderr, nothing when piped; notices always go to stderr. */
function terminalProgress(): ProgressSink {
  const live = process.stderr.isTTY === true;
  let total = 0;
  let done = 0;
  let last = 0;
  return {
    start(_stage, n) {
      total = n;
      done = 0;
    },
    tick(stage, outcome, label, detail) {
      done++;
      if (outcome === 'failed' && label) process.stderr.write(`${live ? '\r' : ''}${stage}: ${label} failed: ${detail ?? ''}\n`);
      const t = Date.now();
      if (live && (t - last > 100 || done === total)) {
        last = t;
        process.stderr.write(`\r${stage}: ${done}/${total}`);
      }
    },
    note(stage, message) {
      process.stderr.write(`${live && done > 0 ? '\n' : ''}${stage}: ${message}\n`);
    },
    end() {
      if (live && total > 0) process.stderr.write('\n');
    },
  };
}

interface SimulateFlags extends SharedFlags {
  /** `trials` here is the old spelling of `--sim-trials` (simulate takes no T). */
  rule: string;
  velocityThreshold?: number;
  rawImages?: boolean;
  force?: boolean;
  json?: boolean;
  robustness?: number;
}

interface FolderResult {
  model: string | undefined;
  root: string;
  summary: SimulateSummary;
  robustness: RobustnessSummary | undefined;
}

/** Every competition folder of the root (one per model in the 2025 layout), until Ctrl-C. */
async function simulateFolders(settings: Settings, flags: SimulateFlags, signal: AbortSignal): Promise<FolderResult[]> {
  const results: FolderResult[] = [];
  for (const competition of settings.competitions) {
    if (signal.aborted) break;
    // The perturbed runs see the levels exactly as the official simulation does.
    const stage = {
      root: competition.root,
      filter: stageFilter(settings),
      trials: settings.simulationTrials,
      damage: settings.damage,
      rule: ruleFrom(flags.rule, flags.velocityThreshold),
      engine: settings.engine,
      rawImages: flags.rawImages === true,
      force: flags.force === true,
      workers: settings.workers,
    };
    const summary = await runSimulateStage({ ...stage, signal }, terminalProgress());
    const robustness =
      settings.robustness === undefined || signal.aborted ? undefined : await runRobustnessStage({ ...stage, runs: settings.robustness }, terminalProgress());
    results.push({ model: competition.model, root: competition.root, summary, robustness });
  }
  return results;
}

function simulateJson(results: readonly FolderResult[]): string {
  const records = results.map(({ model, summary: { reasons, ...rest }, robustness }) => ({
    ...(model === undefined ? {} : { model }),
    ...rest,
    reasons: Object.fromEntries(reasons),
    ...(robustness ? { robustness: robustnessJson(robustness) } : {}),
  }));
  return JSON.stringify(records.length === 1 ? records[0] : records, null, 2);
}

/** The summary of one folder: every level it planned is in one count (done, failed, already done, unfinished, not run). */
function simulateText({ model, root, summary, robustness }: FolderResult, settings: Settings): string {
  const lines = [`${modelLabel(model)}${formatSummary(summary)}`];
  if (summary.unfinished > 0) lines.push(`  ${summary.unfinished} of the failed are unfinished: engine failures, not verdicts (run again to retry them)`);
  if (summary.notRun > 0) lines.push(`  ${summary.notRun} not run: interrupted before they started (run the same command to do them)`);
  if (didNothing(summary) && summary.notRun === 0) lines.push(`  ${nothingToDo('stability', root, stageFilter(settings))}`);
  lines.push(`  stability files: ${summary.characters.length}`);
  if (robustness) lines.push(formatRobustness(robustness));
  return lines.join('\n');
}

/** Exit 1 when levels could not be simulated or perturbed (engine failures): nobody publishes an incomplete stage. */
function reportUnfinished(results: readonly FolderResult[]): void {
  const noRobustness = results.reduce((n, s) => n + (s.robustness?.failed.length ?? 0), 0);
  if (noRobustness > 0) {
    process.stderr.write(`simulate: ${noRobustness} level(s) have no robustness result (engine failures); run again to retry them\n`);
    process.exitCode = EXIT_CHECK_FAILED;
  }
  const unfinished = results.reduce((n, s) => n + s.summary.unfinished, 0);
  if (unfinished > 0) {
    process.stderr.write(`simulate: ${unfinished} level(s) could not be simulated (engine failures, see the log); run again to retry them\n`);
    process.exitCode = EXIT_CHECK_FAILED;
  }
}

async function simulateAction(root: string, flags: SimulateFlags): Promise<void> {
  const { trials: _legacy, ...shared } = flags;
  const settings = commandSettings('simulate', root, { ...shared, simTrials: simTrialsOf(flags) });
  const controller = new AbortController();
  const interrupt = stopOnInterrupt('simulate', () => controller.abort());
  let results: FolderResult[];
  try {
    results = await simulateFolders(settings, flags, controller.signal);
  } finally {
    interrupt.finish();
  }
  process.stdout.write(`${flags.json ? simulateJson(results) : results.map((r) => simulateText(r, settings)).join('\n')}\n`);
  if (interrupt.stoppedBy) return; // exit 130, set by the interrupt
  reportUnfinished(results);
}

export function registerSimulateCommands(program: Command): void {
  const simulate = physicsOptions(
    program.command('simulate').description(COMMAND_SUMMARIES.simulate).argument('<root>', 'competition folder (<root>/<team>/levels/<C>/<team>_<C>_<n>.xml)'),
  );
  addSettingsOptions(simulate, ['rules', 'engine', 'workers', 'team', 'chars', 'robustness'])
    .option('--raw-images', 'also write <name>_raw.png (flat colours per material, before the OCR swap)')
    .option('--force', 'ignore the cache and run every level again')
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      `
With --robustness N, every level with a verdict is run N more times, one trial each, perturbed the way
Unity's own runs differ, and a verdict is fragile when fewer than 90% of the runs agree with it. The
runs are cached; sbeval score --robustness N (or run --robustness N) lists them per level in
result/robustness.csv with the other result files.

Writes <root>/<team>/stability/<C>.json in the evaluator's exact format and
<root>/<team>/images/<C>/<name>.png (1024×1024, black on white). Finished levels are cached under
<root>/.sbeval/simulate/ with the XML hash and a settings digest, so an interrupted run resumes and a
second run changes nothing. A level that cannot be loaded is logged with its reason in
<root>/logs/stability_log_<time>.txt and left out of the JSON. Exit code 0 when every level was
simulated or failed with a verdict, 1 when some could not be simulated (engine failures; run again),
130 when stopped by Ctrl-C.

Settings (stability trials, damage, engine, workers, teams, characters) come from the flags, then the
root's sbeval.config.yaml, then the defaults, as for sbeval run. Ctrl-C stops after the levels in
flight (again to quit at once); finished levels are kept.

Example: sbeval simulate examples/competition --chars I,L --workers 2`,
    )
    .action(simulateAction);
}

/** The robustness lines of `simulate --robustness`: counts, then every fragile verdict. */
function formatRobustness(r: RobustnessSummary): string {
  const lines = [
    `  robustness: ${r.runs} perturbed runs per level, ${r.levels.length} levels (${r.computed} run now), ${r.fragile.length} fragile verdict(s); cached (sbeval score --robustness ${r.runs} lists them in result/robustness.csv)`,
  ];
  if (r.withoutVerdict > 0) lines.push(`  ${r.withoutVerdict} level(s) without a verdict were not perturbed`);
  for (const f of r.fragile) {
    lines.push(
      `  fragile: ${f.team}/${f.character}/${f.base}  official ${f.robustness.officialStable ? 'stable' : 'moving'}, stable in ${formatStableShare(f.robustness)} of the runs, moving ${formatMovingRange(f.robustness)}`,
    );
  }
  for (const failure of r.failed) lines.push(`  not perturbed (engine failure): ${failure}`);
  return lines.join('\n');
}

function robustnessJson(r: RobustnessSummary): Record<string, unknown> {
  return {
    runs: r.runs,
    levels: r.levels.length,
    computed: r.computed,
    withoutVerdict: r.withoutVerdict,
    failed: r.failed,
    fragile: r.fragile.map((f) => ({ team: f.team, letter: f.character, level: f.base, ...f.robustness })),
  };
}
