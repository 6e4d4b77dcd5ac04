import { InvalidArgumentError, type Command } from 'commander';
import { copyFileSync, renameSync, rmSync, mkdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { createProgressDisplay } from '../../progress/index.js';
import { COMPETITION_MODEL, HF_BASE_URL, convertModelFolder, defaultCacheDir, fetchModel } from '../../stages/model.js';

/**
 * `sbeval model convert <hf-dir> --out <file.onnx>` and `sbeval model fetch [repo]`: the competition's ViT
 * (or any ViTForImageClassification) as one ONNX file, without Python.
 */
function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

function describeModel(path: string, r: { config: { numLayers: number; hiddenSize: number; numHeads: number; imageSize: number; patchSize: number; numLabels: number }; bytes: number }): string {
  const c = r.config;
  return `${path}: ViT ${c.numLayers} layers × ${c.hiddenSize} hidden × ${c.numHeads} heads, ${c.imageSize}px / patch ${c.patchSize}, ${c.numLabels} labels, ${(r.bytes / 2 ** 20).toFixed(1)} MiB`;
}

export function registerModelCommands(program: Command): void {
  const model = program.command('model').description('Convert or fetch the ViT classifier used by `sbeval similarity`.');

  model
    .command('convert')
    .description(
      'Convert a Hugging Face ViTForImageClassification folder (config.json, model.safetensors, optional preprocessor_config.json) ' +
        'into one ONNX file with outputs `logits` and `cls_hidden` (CLS of the last encoder layer, before the final LayerNorm). ' +
        'Labels and preprocessing are stored in the file.',
    )
    .argument('<hf-dir>', 'folder with config.json and model.safetensors')
    .requiredOption('--out <file>', 'ONNX file to write')
    .action((dir: string, opts: { out: string }) => {
      const out = resolve(opts.out);
      const r = convertModelFolder(resolve(dir), out);
      process.stdout.write(`${describeModel(out, r)}\n`);
    });

  model
    .command('fetch')
    .description(
      `Download a ViT from the Hugging Face hub (default: the competition's ${COMPETITION_MODEL}) into the cache, ` +
        'verify it against the hub\'s checksums, and convert it to ONNX. Resumes interrupted downloads; a complete cache makes no request.',
    )
    .argument('[repo]', 'hub repository id (owner/name)', COMPETITION_MODEL)
    .option('--revision <rev>', 'branch, tag or commit', 'main')
    .option('--base-url <url>', 'hub or mirror base URL', HF_BASE_URL)
    .option('--cache <dir>', `cache folder (default $SBEVAL_CACHE or ${join('~', '.cache', 'sbeval')})`)
    .option('--out <file>', 'also copy the converted model here')
    .option('--refresh', 'download again even when the cache is complete')
    .option('--retries <n>', 'attempts per file after a dropped connection', positiveInt, 5)
    .option('--json', 'print the manifest as JSON')
    .action(async (repo: string, opts: { revision: string; baseUrl: string; cache?: string; out?: string; refresh?: boolean; retries: number; json?: boolean }) => {
      const display = createProgressDisplay({ intervalMs: 2000 });
      let result;
      try {
        result = await fetchModel({
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
      let onnx = result.onnxPath;
      if (opts.out) {
        const out = resolve(opts.out);
        mkdirSync(dirname(out), { recursive: true });
        const tmp = join(dirname(out), `.${basename(out)}.${process.pid}.tmp`);
        try {
          copyFileSync(result.onnxPath, tmp);
          renameSync(tmp, out);
        } catch (error) {
          rmSync(tmp, { force: true });
          throw error;
        }
        onnx = out;
      }
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ ...result.manifest, onnxPath: onnx, cacheHit: result.cacheHit }, null, 2)}\n`);
      } else {
        const files = Object.entries(result.manifest.files).map(([n, f]) => `  ${n}: ${f.size} bytes, sha256 ${f.sha256} (${f.verified === 'none' ? 'not verifiable' : `verified: ${f.verified}`})`);
        process.stdout.write(`${result.cacheHit ? 'cached' : 'fetched'} ${result.manifest.repo}@${result.manifest.revision}${result.manifest.commit ? ` (${result.manifest.commit})` : ''}\n${files.join('\n')}\nmodel: ${onnx}\n`);
      }
    });
}
