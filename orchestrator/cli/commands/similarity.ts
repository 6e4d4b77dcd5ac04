import type { Command } from 'commander';
import { SbevalError } from '../../../core/errors.js';
import { stageFilter, type Rules, type Settings } from '../../config/index.js';
import { formatSummary, ignoredLine, summaryToJson, type StageSummary } from '../../layout/stage-log.js';
import { createProgressDisplay } from '../../progress/index.js';
import { COMPETITION_MODEL } from '../../stages/model.js';
import { NOT_PNG, runSimilarityStage, type SimilarityRules, type SimilaritySummary } from '../../stages/similarity.js';
import { NOT_JSON, runDiversityStage } from '../../stages/diversity.js';
import { stopOnInterrupt } from '../interrupt.js';
import { addSettingsOptions, commandSettings, intIn, type SharedFlags } from '../settings-options.js';

/**
 * `sbeval similarity <root>` and `sbeval diversity <root>`: the official similarity and diversity scripts
 * over the competition layout, in their file formats, without Python.
 */

/** The similarity file format of a rule set: 2025 adds the CLS embedding; 2023 and 2024 have none. */
function similarityRules(rules: Rules): SimilarityRules {
  return rules === '2025' ? 2025 : 2024;
}

interface CommonFlags extends SharedFlags {
  force?: boolean;
  json?: boolean;
}

/** Runs a stage on every competition folder (one per model in the 2025 layout) with one display. */
async function eachCompetition<T extends StageSummary>(command: string, settings: Settings, json: boolean, stage: (root: string, display: ReturnType<typeof createProgressDisplay>) => Promise<T>) {
  const display = createProgressDisplay({ json });
  const interrupt = stopOnInterrupt(command);
  const summaries: Array<{ model: string | undefined; summary: T }> = [];
  try {
    for (const competition of settings.competitions) summaries.push({ model: competition.model, summary: await stage(competition.root, display) });
  } finally {
    display.close();
    interrupt.finish();
  }
  return summaries;
}

function label(model: string | undefined): string {
  return model === undefined ? '' : `[${model}] `;
}

export function registerSimilarityCommands(program: Command): void {
  const similarity = program
    .command('similarity')
    .description(
      'Classify every image of <root>/<team>/images/<C>/ (except *_raw.png) with the ViT and write <team>/similarity/<C>.json ' +
        'in the official format (2025 rules add cls_embedding). Resumable; identical images are inferred once.',
    )
    .argument('<root>', 'competition folder');
  addSettingsOptions(similarity, ['model', 'rules', 'team', 'chars'])
    .option('--batch <n>', 'images per inference run (default: one per core)', intIn(1))
    .option('--threads <n>', 'onnxruntime intra-op threads (0 = one per physical core)', intIn(0), 0)
    .option('--force', 'redo characters whose file is already up to date')
    .option('--json', 'progress and summary as JSON lines')
    .action(async (root: string, opts: CommonFlags & { batch?: number; threads: number }) => {
      const settings = commandSettings('similarity', root, opts);
      const model = settings.model;
      if (model === undefined) throw new SbevalError('similarity', 'no similarity model', `get the competition's with \`sbeval model fetch ${COMPETITION_MODEL}\`, or pass --model <file.onnx> (see the README for offline routes)`);
      const summaries = await eachCompetition<SimilaritySummary>('similarity', settings, opts.json === true, (folder, display) =>
        runSimilarityStage({ root: folder, model, rules: similarityRules(settings.rules), ...(opts.batch !== undefined ? { batchSize: opts.batch } : {}), threads: opts.threads, filter: stageFilter(settings), force: opts.force === true }, display),
      );
      for (const { model: folder, summary } of summaries) {
        const { classifier, ignored } = summary;
        if (opts.json) process.stdout.write(`${JSON.stringify(summaryToJson(summary, { classifier, ignored, ...(folder === undefined ? {} : { model: folder }) }))}\n`);
        else {
          const dedup = classifier.requested - classifier.inferred;
          const skipped = ignoredLine(ignored, NOT_PNG, summary.logFile);
          process.stdout.write(`${label(folder)}${formatSummary(summary)}\n  inferred ${classifier.inferred} images in ${classifier.runs} runs${dedup > 0 ? ` (${dedup} identical images reused)` : ''}\n${skipped ? `  ${skipped}\n` : ''}`);
        }
      }
    });

  const diversity = program
    .command('diversity')
    .description(
      'Compute <team>/diversity/<C>.json from <team>/similarity/<C>.json as the official diversity script does: cosine distance ' +
        '(scipy 1.12) over every pair of trials, divided by N(N+1)/2 − N. 2024 rules use the 26 softmax values, 2025 the CLS embedding.',
    )
    .argument('<root>', 'competition folder');
  addSettingsOptions(diversity, ['rules', 'trials', 'team', 'chars'])
    .option('--force', 'rewrite files even when their content would not change')
    .option('--json', 'progress and summary as JSON lines')
    .addHelpText('after', '\nT (--trials, the config\'s trials, default 10) is the N of the fixed denominator N(N+1)/2 − N (the script\'s --n_trial).\nThe 2023 rules have no diversity: nothing is written.')
    .action(async (root: string, opts: CommonFlags) => {
      const settings = commandSettings('diversity', root, opts);
      if (settings.rules === '2023') {
        process.stdout.write('diversity: the 2023 rules have no diversity; nothing to do\n');
        return;
      }
      const summaries = await eachCompetition('diversity', settings, opts.json === true, (folder, display) =>
        runDiversityStage({ root: folder, rules: similarityRules(settings.rules), trials: settings.trials, filter: stageFilter(settings), force: opts.force === true }, display),
      );
      for (const { model, summary } of summaries) {
        const skipped = ignoredLine(summary.ignored, NOT_JSON, summary.logFile);
        if (opts.json) process.stdout.write(`${JSON.stringify(summaryToJson(summary, { ignored: summary.ignored, ...(model === undefined ? {} : { model }) }))}\n`);
        else process.stdout.write(`${label(model)}${formatSummary(summary)}\n${skipped ? `  ${skipped}\n` : ''}`);
      }
    });
}
