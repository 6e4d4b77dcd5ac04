import type { Command } from 'commander';
import { SbevalError } from '../../core/errors.js';
import { type Settings, stageFilter } from '../../orchestrator/config/index.js';
import { formatSummary, ignoredLine, type StageSummary, summaryToJson } from '../../orchestrator/layout/stage-log.js';
import { createProgressDisplay } from '../../orchestrator/progress/index.js';
import { NOT_JSON, runDiversityStage } from '../../orchestrator/stages/diversity.js';
import { COMPETITION_MODEL } from '../../orchestrator/stages/model.js';
import { NOT_PNG, runSimilarityStage, type SimilaritySummary } from '../../orchestrator/stages/similarity.js';
import { RULE_SETS } from '../../scoring/score/rules.js';
import { stopOnInterrupt } from '../interrupt.js';
import { option, wholeNumber } from '../options.js';
import { addSettingsOptions, commandSettings, type SharedFlags } from '../settings-options.js';
import { didNothing, modelLabel, nothingToDo } from '../stage-output.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/**
 * `sbeval similarity <root>` and `sbeval diversity <root>`: the official similarity and diversity scripts
 * over the competition layout, in their file formats, without Python.
 */

interface CommonFlags extends SharedFlags {
  force?: boolean;
  json?: boolean;
}

/** Runs a stage on every competition folder (one per model in the 2025 layout) with one display. */
async function eachCompetition<T extends StageSummary>(
  command: string,
  settings: Settings,
  json: boolean,
  stage: (root: string, display: ReturnType<typeof createProgressDisplay>) => Promise<T>,
) {
  const display = createProgressDisplay({ json });
  const interrupt = stopOnInterrupt(command);
  const summaries: Array<{ model: string | undefined; root: string; summary: T }> = [];
  try {
    for (const competition of settings.competitions)
      summaries.push({ model: competition.model, root: competition.root, summary: await stage(competition.root, display) });
  } finally {
    display.close();
    interrupt.finish();
  }
  return summaries;
}

/** Where the model comes from without a network: docs/similarity.md, "No network: offline routes to a model". */
const OFFLINE_ROUTES_DOC = 'docs/similarity.md#no-network-offline-routes-to-a-model';

async function similarityAction(root: string, opts: CommonFlags & { batch?: number; threads: number }): Promise<void> {
  const settings = commandSettings('similarity', root, opts);
  const model = settings.model;
  if (model === undefined) {
    throw new SbevalError(
      'similarity',
      'no similarity model',
      `get the competition's with \`sbeval model fetch ${COMPETITION_MODEL}\`, or pass --model <file.onnx>; without network: ${OFFLINE_ROUTES_DOC}`,
    );
  }
  const summaries = await eachCompetition<SimilaritySummary>('similarity', settings, opts.json === true, (folder, display) =>
    runSimilarityStage(
      {
        root: folder,
        model,
        rules: RULE_SETS[settings.rules].similarityFormat,
        ...(opts.batch !== undefined ? { batchSize: opts.batch } : {}),
        threads: opts.threads,
        filter: stageFilter(settings),
        force: opts.force === true,
      },
      display,
    ),
  );
  for (const { model: folder, root: competition, summary } of summaries) {
    const { classifier, ignored } = summary;
    const nothing = didNothing(summary) ? nothingToDo('similarity', competition, stageFilter(settings)) : undefined;
    if (opts.json)
      process.stdout.write(
        `${JSON.stringify(summaryToJson(summary, { classifier, ignored, ...(folder === undefined ? {} : { model: folder }), ...(nothing ? { nothingToDo: nothing } : {}) }))}\n`,
      );
    else {
      const dedup = classifier.requested - classifier.inferred;
      const skipped = ignoredLine(ignored, NOT_PNG, summary.logFile);
      process.stdout.write(
        `${modelLabel(folder)}${formatSummary(summary)}\n  inferred ${classifier.inferred} images in ${classifier.runs} runs${dedup > 0 ? ` (${dedup} identical images reused)` : ''}\n${skipped ? `  ${skipped}\n` : ''}`,
      );
      if (nothing) process.stdout.write(`  ${nothing}\n`);
    }
  }
}

async function diversityAction(root: string, opts: CommonFlags): Promise<void> {
  const settings = commandSettings('diversity', root, opts);
  if (!RULE_SETS[settings.rules].diversity) {
    process.stdout.write(`diversity: the ${settings.rules} rules have no diversity; nothing to do\n`);
    return;
  }
  const summaries = await eachCompetition('diversity', settings, opts.json === true, (folder, display) =>
    runDiversityStage(
      { root: folder, rules: RULE_SETS[settings.rules].similarityFormat, trials: settings.trials, filter: stageFilter(settings), force: opts.force === true },
      display,
    ),
  );
  for (const { model, root: competition, summary } of summaries) {
    // An empty summary does not say whether the folder is done or has nothing to read: say what was found.
    const nothing = didNothing(summary) ? nothingToDo('diversity', competition, stageFilter(settings)) : undefined;
    const skipped = ignoredLine(summary.ignored, NOT_JSON, summary.logFile);
    if (opts.json)
      process.stdout.write(
        `${JSON.stringify(summaryToJson(summary, { ignored: summary.ignored, ...(model === undefined ? {} : { model }), ...(nothing ? { nothingToDo: nothing } : {}) }))}\n`,
      );
    else process.stdout.write(`${modelLabel(model)}${formatSummary(summary)}\n${skipped ? `  ${skipped}\n` : ''}${nothing ? `  ${nothing}\n` : ''}`);
  }
}

export function registerSimilarityCommands(program: Command): void {
  const similarity = program.command('similarity').description(COMMAND_SUMMARIES.similarity).argument('<root>', 'competition folder');
  addSettingsOptions(similarity, ['model', 'rules', 'team', 'chars'])
    .addOption(option('--batch <n>', 'images per inference run', { parse: wholeNumber(1), defaultText: 'one per core' }))
    .addOption(option('--threads <n>', 'onnxruntime intra-op threads (0 = one per physical core)', { parse: wholeNumber(0), default: 0 }))
    .option('--force', 'redo characters whose file is already up to date')
    .option('--json', 'progress and summary as JSON lines')
    .action(similarityAction);

  const diversity = program.command('diversity').description(COMMAND_SUMMARIES.diversity).argument('<root>', 'competition folder');
  addSettingsOptions(diversity, ['rules', 'trials', 'team', 'chars'])
    .option('--force', 'rewrite files even when their content would not change')
    .option('--json', 'progress and summary as JSON lines')
    .addHelpText(
      'after',
      "\nT (--trials, the config's trials, default 10) is the N of the fixed denominator N(N+1)/2 − N (the script's --n_trial).\nThe 2023 rules have no diversity: nothing is written.",
    )
    .action(diversityAction);
}
