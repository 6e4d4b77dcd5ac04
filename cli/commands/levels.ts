import { relative } from 'node:path';
import type { Command } from 'commander';
import { DROP_FAILURES } from '../../levels/drop.js';
import { CODE_NOT_FOUND } from '../../levels/extract.js';
import { type Settings, stageFilter } from '../../orchestrator/config/index.js';
import { formatSummary, type StageSummary, summaryToJson } from '../../orchestrator/layout/stage-log.js';
import { createProgressDisplay } from '../../orchestrator/progress/index.js';
import type { ProgressSink } from '../../orchestrator/progress/types.js';
import { runConvertStage } from '../../orchestrator/stages/convert.js';
import { runExtractStage } from '../../orchestrator/stages/extract.js';
import { failureReason, runQualifyStage } from '../../orchestrator/stages/qualify.js';
import { EXIT_CHECK_FAILED } from '../exit-codes.js';
import { option } from '../options.js';
import { addSettingsOptions, commandSettings, type SharedFlags } from '../settings-options.js';
import { didNothing, modelLabel, nothingToDo } from '../stage-output.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/**
 * The level stages over the official competition layout: `extract` (raw → intermediate), `convert`
 * (intermediate → levels), and the 2023 prompt check `qualify`.
 */

interface StageFlags extends SharedFlags {
  force?: boolean;
  json?: boolean;
}

/**
 * Progress goes to stderr through the shared displays (live bars on a terminal, periodic plain lines
 * otherwise); stdout carries only the summary, so `--json` output stays parseable.
 */
async function withDisplay<T>(work: (sink: ProgressSink) => Promise<T>): Promise<T> {
  const display = createProgressDisplay({ stream: process.stderr });
  try {
    return await work(display);
  } finally {
    display.close();
  }
}

type FolderSummary = { model: string | undefined; root: string; summary: StageSummary };

/** The summary of every competition folder; one that found nothing to do says what it looked for. */
function printSummaries(summaries: readonly FolderSummary[], settings: Settings, json: boolean | undefined): void {
  const nothing = ({ root, summary }: FolderSummary) => (didNothing(summary) ? nothingToDo(summary.stage, root, stageFilter(settings)) : undefined);
  if (json) {
    const records = summaries.map((s) => {
      const idle = nothing(s);
      return summaryToJson(s.summary, { ...(s.model === undefined ? {} : { model: s.model }), ...(idle ? { nothingToDo: idle } : {}) });
    });
    process.stdout.write(`${JSON.stringify(records.length === 1 ? records[0] : records, null, 2)}\n`);
    return;
  }
  for (const s of summaries) {
    const idle = nothing(s);
    process.stdout.write(`${modelLabel(s.model)}${formatSummary(s.summary)}\n${idle ? `  ${idle}\n` : ''}`);
  }
}

function addStageFlags(command: Command): Command {
  return addSettingsOptions(command, ['rules', 'prefix', 'team', 'chars'])
    .option('--force', 'redo trials whose output is already up to date')
    .option('--json', 'print the summary as JSON');
}

/** Runs a folder stage on every competition folder of the root (one per model in the 2025 layout). */
async function eachCompetition(settings: Settings, stage: (root: string, sink: ProgressSink) => Promise<StageSummary>): Promise<FolderSummary[]> {
  const summaries: FolderSummary[] = [];
  for (const competition of settings.competitions)
    summaries.push({ model: competition.model, root: competition.root, summary: await withDisplay((sink) => stage(competition.root, sink)) });
  return summaries;
}

function registerExtract(program: Command): void {
  addStageFlags(
    program.command('extract').description(COMMAND_SUMMARIES.extract).argument('<root>', 'competition folder (<root>/<team>/raw/<C>/<team>_<C>_<n>.txt)'),
  )
    .addHelpText(
      'after',
      `
Writes <root>/<team>/intermediate/<C>/<name>.txt with the calls of the response's last fenced code
block (one per line, lower-cased, single quotes). A response without calls writes nothing and is logged
as "Failed - ${CODE_NOT_FOUND}" in <root>/logs/intermediate_log_<time>.txt. Trials whose output is newer
than their input are skipped, so an interrupted run resumes. Exit code 0 when the stage ran.

Example: sbeval extract examples/competition --team BlockSmith --chars I,L`,
    )
    .action(async (root: string, flags: StageFlags) => {
      const settings = commandSettings('extract', root, flags);
      const summaries = await eachCompetition(settings, (folder, sink) =>
        runExtractStage({ root: folder, prefix: settings.prefix, filter: stageFilter(settings), force: flags.force === true }, sink),
      );
      printSummaries(summaries, settings, flags.json);
    });
}

function registerConvert(program: Command): void {
  addStageFlags(
    program
      .command('convert')
      .description(COMMAND_SUMMARIES.convert)
      .argument('<root>', 'competition folder (<root>/<team>/intermediate/<C>/<team>_<C>_<n>.txt)'),
  )
    .addHelpText(
      'after',
      `
Writes <root>/<team>/levels/<C>/<name>.xml. A program the official converter refuses writes nothing and
is logged with the official reason in <root>/logs/levels_log_<time>.txt, one of
${DROP_FAILURES.map((r) => `"${r}"`).join(', ')}
Exit code 0 when the stage ran.

Example: sbeval convert examples/competition`,
    )
    .action(async (root: string, flags: StageFlags) => {
      const settings = commandSettings('convert', root, flags);
      const summaries = await eachCompetition(settings, (folder, sink) =>
        runConvertStage({ root: folder, prefix: settings.prefix, filter: stageFilter(settings), force: flags.force === true }, sink),
      );
      printSummaries(summaries, settings, flags.json);
    });
}

function registerQualify(program: Command): void {
  program
    .command('qualify')
    .description(COMMAND_SUMMARIES.qualify)
    .argument('<prompt-file...>', 'prompt text files, or folders of them')
    .option('--json', 'print the verdicts as JSON')
    .addOption(option('--copy-to <dir>', 'copy qualified prompts into <dir> and write the official log <dir>/logs/qualified_log_<time>.txt'))
    .addHelpText(
      'after',
      `
Checks run in the official order and the verdict names the first failure (maxLength, disallowChars,
objectToken); the numbers behind every check are printed. Exit code 0 when every prompt qualifies,
1 when at least one does not (so scripts can gate on it), 2 when a file cannot be read.

Example: sbeval qualify prompts/ --json`,
    )
    .action(async (paths: string[], flags: { json?: boolean; copyTo?: string }) => {
      const result = await withDisplay((sink) => runQualifyStage({ paths, copyTo: flags.copyTo }, sink));
      if (flags.json) {
        const prompts = result.prompts.map((p) => ({ file: p.file, team: p.team, ...p.verdict }));
        process.stdout.write(`${JSON.stringify({ prompts, summary: summaryToJson(result.summary) }, null, 2)}\n`);
      } else {
        for (const p of result.prompts) {
          const v = p.verdict;
          const chars = v.disallowedCharacters
            .map((c) => `${JSON.stringify(c)} (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`)
            .join(', ');
          const details = [`${v.words}/${v.maxWords} words`, `<OBJECT> ×${v.objectTokens}`, chars ? `disallowed: ${chars}` : 'characters ok'].join(', ');
          const name = relative(process.cwd(), p.file) || p.file;
          process.stdout.write(`${v.qualified ? 'qualified   ' : 'DISQUALIFIED'}  ${name}  ${v.qualified ? '' : `[${failureReason(v)}] `}${details}\n`);
        }
        const s = result.summary;
        process.stdout.write(`qualify: ${s.succeeded} qualified, ${s.failed} disqualified${s.logFile ? `\n  log: ${s.logFile}` : ''}\n`);
      }
      // 1 = a check failed (cli/main.ts EXIT_CHECK_FAILED).
      if (result.summary.failed > 0) process.exitCode = EXIT_CHECK_FAILED;
    });
}

export function registerLevelsCommands(program: Command): void {
  registerExtract(program);
  registerConvert(program);
  registerQualify(program);
}
