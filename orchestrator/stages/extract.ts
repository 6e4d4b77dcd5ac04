import { assertFunctionName, CODE_NOT_FOUND, DROP_BLOCK, extractCode } from '../../levels/extract.js';
import type { StageSummary } from '../layout/stage-log.js';
import { type ProgressSink, SILENT_PROGRESS } from '../progress/types.js';
import { rememberTransform } from './transform-memo.js';
import { runTrialTransform, type TrialTransformOptions } from './trial-transform.js';

/**
 * `raw` → `intermediate`: the official code-extraction-script (reference/official-pipeline.md §2).
 * `<root>/<team>/raw/<C>/<name>.<ext>` becomes `<root>/<team>/intermediate/<C>/<name>.txt` holding the
 * extracted calls; a response without code writes nothing and logs `Failed - Code not found.` in
 * `<root>/logs/intermediate_log_<ISO>.txt`.
 */
interface ExtractStageOptions extends TrialTransformOptions {
  /** `drop_block` (2024–2025, default) or `ab_drop` (2023). */
  prefix?: string;
}

export function runExtractStage(options: ExtractStageOptions, progress: ProgressSink = SILENT_PROGRESS): Promise<StageSummary> {
  const prefix = assertFunctionName(options.prefix ?? DROP_BLOCK);
  return runTrialTransform(
    {
      stage: 'extract',
      logStage: 'intermediate',
      input: 'raw',
      output: 'intermediate',
      extension: '.txt',
      transform(content) {
        const code = extractCode(content, prefix);
        rememberTransform('extract', prefix, content, code);
        return code === null ? { ok: false, reason: CODE_NOT_FOUND } : { ok: true, output: code };
      },
    },
    options,
    progress,
  );
}
