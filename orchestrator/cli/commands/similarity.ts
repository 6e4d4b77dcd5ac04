import { InvalidArgumentError, type Command } from 'commander';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SbevalError } from '../../../core/errors.js';
import { formatSummary } from '../../layout/stage-log.js';
import { createProgressDisplay } from '../../progress/index.js';
import { COMPETITION_MODEL, defaultCacheDir } from '../../stages/model.js';
import { runSimilarityStage, type SimilarityRules } from '../../stages/similarity.js';
import { runDiversityStage } from '../../stages/diversity.js';
import { summaryToJson } from '../../layout/stage-log.js';

/**
 * `sbeval similarity <root>` and `sbeval diversity <root>`: the official similarity and diversity scripts
 * over the competition layout, in their file formats, without Python.
 */
function collectList(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v.length > 0)];
}

function rules(value: string): SimilarityRules {
  if (value !== '2024' && value !== '2025') throw new InvalidArgumentError('expected 2024 or 2025');
  return Number(value) as SimilarityRules;
}

function intAtLeast(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected an integer ≥ ${min}`);
    return n;
  };
}

/** The competition model as `sbeval model fetch` caches it. */
export function cachedCompetitionModel(): string {
  return join(defaultCacheDir(), 'models', `models--${COMPETITION_MODEL.replace('/', '--')}`, 'main', 'model.onnx');
}

interface CommonFlags {
  rules: SimilarityRules;
  team: string[];
  char: string[];
  force?: boolean;
  json?: boolean;
}

export function registerSimilarityCommands(program: Command): void {
  program
    .command('similarity')
    .description(
      'Classify every image of <root>/<team>/images/<C>/ (except *_raw.png) with the ViT and write <team>/similarity/<C>.json ' +
        'in the official format (2025 rules add cls_embedding). Resumable; identical images are inferred once.',
    )
    .argument('<root>', 'competition folder')
    .option('--model <file>', `ONNX model from \`sbeval model fetch|convert\` (default: the cached ${COMPETITION_MODEL})`)
    .option('--rules <year>', '2024 (softmax only) or 2025 (also cls_embedding)', rules, 2025 as SimilarityRules)
    .option('--batch <n>', 'images per inference run (default: one per core)', intAtLeast(1))
    .option('--threads <n>', 'onnxruntime intra-op threads (0 = one per physical core)', intAtLeast(0), 0)
    .option('--team <names>', 'only these teams (comma-separated, repeatable)', collectList, [])
    .option('--char <letters>', 'only these characters (comma-separated, repeatable)', collectList, [])
    .option('--force', 'redo characters whose file is already up to date')
    .option('--json', 'progress and summary as JSON lines')
    .action(async (root: string, opts: CommonFlags & { model?: string; batch?: number; threads: number }) => {
      const model = resolve(opts.model ?? cachedCompetitionModel());
      if (!existsSync(model)) {
        throw new SbevalError('similarity', `model ${model} not found`, opts.model ? undefined : 'run `sbeval model fetch` first (or pass --model)');
      }
      const display = createProgressDisplay({ json: opts.json === true });
      let summary;
      try {
        summary = await runSimilarityStage(
          {
            root: resolve(root),
            model,
            rules: opts.rules,
            ...(opts.batch !== undefined ? { batchSize: opts.batch } : {}),
            threads: opts.threads,
            filter: { teams: opts.team, characters: opts.char },
            force: opts.force === true,
          },
          display,
        );
      } finally {
        display.close();
      }
      const { classifier, ignored } = summary;
      if (opts.json) process.stdout.write(`${JSON.stringify(summaryToJson(summary, { classifier, ignored }))}\n`);
      else {
        const dedup = classifier.requested - classifier.inferred;
        process.stdout.write(`${formatSummary(summary)}\n  inferred ${classifier.inferred} images in ${classifier.runs} runs${dedup > 0 ? ` (${dedup} identical images reused)` : ''}${ignored.length ? `; ${ignored.length} non-PNG files ignored` : ''}\n`);
      }
    });

  program
    .command('diversity')
    .description(
      'Compute <team>/diversity/<C>.json from <team>/similarity/<C>.json as the official diversity script does: cosine distance ' +
        '(scipy 1.12) over every pair of trials, divided by N(N+1)/2 − N. 2024 rules use the 26 softmax values, 2025 the CLS embedding.',
    )
    .argument('<root>', 'competition folder')
    .option('--rules <year>', '2024 (softmax vectors) or 2025 (CLS embeddings)', rules, 2025 as SimilarityRules)
    .option('--trials <n>', 'trials per letter N of the fixed denominator (the script\'s --n_trial)', intAtLeast(2), 10)
    .option('--team <names>', 'only these teams (comma-separated, repeatable)', collectList, [])
    .option('--char <letters>', 'only these characters (comma-separated, repeatable)', collectList, [])
    .option('--force', 'rewrite files even when their content would not change')
    .option('--json', 'progress and summary as JSON lines')
    .action(async (root: string, opts: CommonFlags & { trials: number }) => {
      const display = createProgressDisplay({ json: opts.json === true });
      let summary;
      try {
        summary = await runDiversityStage(
          { root: resolve(root), rules: opts.rules, trials: opts.trials, filter: { teams: opts.team, characters: opts.char }, force: opts.force === true },
          display,
        );
      } finally {
        display.close();
      }
      process.stdout.write(opts.json ? `${JSON.stringify(summaryToJson(summary))}\n` : `${formatSummary(summary)}\n`);
    });
}
