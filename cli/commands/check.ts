import type { Command } from 'commander';
import { resolveSettings } from '../../llm/config.js';
import { LLM_RESULT_CONTRIBUTORS } from '../../llm/result-contributors.js';
import { checkLines, checkResults } from '../../orchestrator/result/check.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/**
 * `sbeval check <root>`: whether `result/` still describes the folder (orchestrator/result/check.ts):
 * exit 0 when it does, 1 with what changed when it does not, 2 for a folder that is not a competition.
 */
const EXIT_STALE = 1;

export function registerCheckCommands(program: Command): void {
  program
    .command('check')
    .description(COMMAND_SUMMARIES.check)
    .argument('<root>', 'competition folder')
    .option('--json', 'print the comparison as JSON')
    .addHelpText(
      'after',
      `
Compares result/manifest.json (written by sbeval run and sbeval score) with the folder: every input file
by content (responses, programs, levels, images, stability/similarity/diversity files, judge and survey
files, the config file), and every result file it vouches for. Exit 0: result/ describes the folder;
1: something changed since (listed), or there is no manifest; 2: not a competition folder.
sbeval run redoes exactly what changed. Details: docs/result-folder.md`,
    )
    .action((root: string, flags: { json?: boolean }) => {
      // The one reading of the folder every command shares (layout/root-check.ts, config/settings.ts).
      const settings = resolveSettings(root, {}, { command: 'check' });
      const result = checkResults(settings, LLM_RESULT_CONTRIBUTORS);
      if (flags.json) {
        const { manifest, ...rest } = result;
        process.stdout.write(`${JSON.stringify({ ...rest, command: manifest?.command ?? null, score: manifest?.score ?? null }, null, 2)}\n`);
      } else process.stdout.write(`${checkLines(result).join('\n')}\n`);
      if (!result.current) process.exitCode = EXIT_STALE;
    });
}
