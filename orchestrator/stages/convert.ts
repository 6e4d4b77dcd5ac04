import { assertFunctionName, DROP_BLOCK } from '../../levels/extract.js';
import { convertProgram } from '../../levels/pipeline.js';
import type { StageSummary } from '../layout/stage-log.js';
import { type ProgressSink, SILENT_PROGRESS } from '../progress/types.js';
import { rememberTransform } from './transform-memo.js';
import { runTrialTransform, type TrialTransformOptions } from './trial-transform.js';

/**
 * `intermediate` → `levels`: the official text-to-xml-converter-script (reference/official-pipeline.md
 * §3). `<root>/<team>/intermediate/<C>/<name>.<ext>` becomes `<root>/<team>/levels/<C>/<name>.xml`,
 * byte-identical to `convertTextToXML`; a program the converter refuses writes nothing and logs the
 * official message (`Height boundary is intruded.`, `Width boundary is intruded.`,
 * `BlockType does not exist.`) in `<root>/logs/levels_log_<ISO>.txt`.
 */
interface ConvertStageOptions extends TrialTransformOptions {
  /** `drop_block` (2024–2025, default) or `ab_drop` (2023); the converter matches lines starting `<prefix>(`. */
  prefix?: string;
}

export function runConvertStage(options: ConvertStageOptions, progress: ProgressSink = SILENT_PROGRESS): Promise<StageSummary> {
  const prefix = assertFunctionName(options.prefix ?? DROP_BLOCK);
  return runTrialTransform(
    {
      stage: 'convert',
      logStage: 'levels',
      input: 'intermediate',
      output: 'levels',
      extension: '.xml',
      transform(content) {
        const result = convertProgram(content, { prefix });
        rememberTransform('convert', prefix, content, result.ok ? result.xml : null);
        return result.ok ? { ok: true, output: result.xml } : { ok: false, reason: result.reason };
      },
    },
    options,
    progress,
  );
}
