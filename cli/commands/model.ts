import { copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { createProgressDisplay } from '../../orchestrator/progress/index.js';
import {
  COMPETITION_MODEL,
  convertModelFolder,
  defaultCacheDir,
  type FetchResult,
  fetchModel,
  HF_BASE_URL,
  offlineRoutes,
} from '../../orchestrator/stages/model.js';
import { option, wholeNumber, wrapHelp } from '../options.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/**
 * `sbeval model convert <hf-dir> --out <file.onnx>` and `sbeval model fetch [repo]`: the competition's ViT
 * (or any ViTForImageClassification) as one ONNX file, without Python.
 */
function describeModel(
  path: string,
  r: { config: { numLayers: number; hiddenSize: number; numHeads: number; imageSize: number; patchSize: number; numLabels: number }; bytes: number },
): string {
  const c = r.config;
  return `${path}: ViT ${c.numLayers} layers × ${c.hiddenSize} hidden × ${c.numHeads} heads, ${c.imageSize}px / patch ${c.patchSize}, ${c.numLabels} labels, ${(r.bytes / 2 ** 20).toFixed(1)} MiB`;
}

interface FetchFlags {
  revision: string;
  baseUrl: string;
  cache?: string;
  out?: string;
  refresh?: boolean;
  retries: number;
  json?: boolean;
}

async function fetchWithProgress(repo: string, opts: FetchFlags): Promise<FetchResult> {
  const display = createProgressDisplay({ intervalMs: 2000 });
  try {
    return await fetchModel({
      repo,
      revision: opts.revision,
      baseUrl: opts.baseUrl,
      cacheDir: resolve(opts.cache ?? defaultCacheDir()),
      refresh: opts.refresh === true,
      retries: opts.retries,
      progress: display,
    });
  } finally {
    display.close();
  }
}

/** `--out`: a copy of the converted model, written atomically. */
function copyModel(from: string, to: string): string {
  const out = resolve(to);
  mkdirSync(dirname(out), { recursive: true });
  const tmp = join(dirname(out), `.${basename(out)}.${process.pid}.tmp`);
  try {
    copyFileSync(from, tmp);
    renameSync(tmp, out);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  return out;
}

async function fetchAction(repo: string, opts: FetchFlags): Promise<void> {
  const result = await fetchWithProgress(repo, opts);
  const onnx = opts.out ? copyModel(result.onnxPath, opts.out) : result.onnxPath;
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ ...result.manifest, onnxPath: onnx, cacheHit: result.cacheHit }, null, 2)}\n`);
    return;
  }
  const files = Object.entries(result.manifest.files).map(
    ([n, f]) => `  ${n}: ${f.size} bytes, sha256 ${f.sha256} (${f.verified === 'none' ? 'not verifiable' : `verified: ${f.verified}`})`,
  );
  process.stdout.write(
    `${result.cacheHit ? 'cached' : 'fetched'} ${result.manifest.repo}@${result.manifest.revision}${result.manifest.commit ? ` (${result.manifest.commit})` : ''}\n${files.join('\n')}\nmodel: ${onnx}\n`,
  );
}

export function registerModelCommands(program: Command): void {
  const model = program.command('model').description(COMMAND_SUMMARIES.model);

  model
    .command('convert')
    .description(
      'Convert a Hugging Face ViTForImageClassification folder (config.json, model.safetensors, optional preprocessor_config.json) ' +
        'into one ONNX file with outputs `logits` and `cls_hidden` (CLS of the last encoder layer, before the final LayerNorm). ' +
        'Labels and preprocessing are stored in the file.',
    )
    .argument('<hf-dir>', 'folder with config.json and model.safetensors')
    .addOption(option('--out <file>', 'ONNX file to write', { required: true }))
    .action((dir: string, opts: { out: string }) => {
      const out = resolve(opts.out);
      process.stdout.write(`${describeModel(out, convertModelFolder(resolve(dir), out))}\n`);
    });

  model
    .command('fetch')
    .description(
      `Download a ViT from the Hugging Face hub (default: the competition's ${COMPETITION_MODEL}) into the cache, ` +
        "verify it against the hub's checksums, and convert it to ONNX. Resumes interrupted downloads; a complete cache makes no request.",
    )
    .argument('[repo]', 'hub repository id (owner/name)', COMPETITION_MODEL)
    .addOption(option('--revision <rev>', 'branch, tag or commit', { default: 'main' }))
    .addOption(option('--base-url <url>', 'hub or mirror base URL', { default: HF_BASE_URL }))
    .addOption(option('--cache <dir>', 'cache folder', { defaultText: `$SBEVAL_CACHE, else ${join('~', '.cache', 'sbeval')}` }))
    .addOption(option('--out <file>', 'also copy the converted model here'))
    .option('--refresh', 'download again even when the cache is complete')
    .addOption(option('--retries <n>', 'attempts per file after a dropped connection', { parse: wholeNumber(0), default: 5 }))
    .option('--json', 'print the manifest as JSON')
    .addHelpText('after', `\n${wrapHelp(offlineRoutes(COMPETITION_MODEL).replace(/^w/, 'W'))}`)
    .action(fetchAction);
}
