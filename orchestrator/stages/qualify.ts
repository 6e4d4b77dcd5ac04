import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { confineWrites } from '../../core/write-guard.js';
import { type QualificationVerdict, qualify } from '../../levels/rules-2023.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { compareNames } from '../layout/competition.js';
import { LineFile } from '../layout/line-file.js';
import { logFileStamp, type StageSummary } from '../layout/stage-log.js';
import { type ProgressSink, SILENT_PROGRESS } from '../progress/types.js';

/**
 * The 2023 qualification check (chatgpt4pcg/qualification-checking-script; reference/official-pipeline.md
 * §8): each prompt file must have at most 900 words, only allowed characters and an `<OBJECT>` token,
 * checked in that order. With `copyTo`, qualified prompts are copied there (the official script copies
 * to `<prompts>/../qualified/`) and the official log `<copyTo>/logs/qualified_log_<ISO>.txt` is written
 * with its lines `Processing - team: <name> - maxLength|disallowChars|objectToken: Success|Failed`.
 */
interface QualifyStageOptions {
  /** Prompt files, or folders whose non-hidden files are all prompts (as the official script reads them). */
  paths: string[];
  copyTo?: string;
  now?: () => Date;
}

interface PromptVerdict {
  file: string;
  /** The team name the official log uses: the file name without its last extension. */
  team: string;
  verdict: QualificationVerdict;
}

interface QualifyStageResult {
  prompts: PromptVerdict[];
  summary: StageSummary;
}

async function expand(paths: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new SbevalError('input', `prompt file ${path} does not exist`);
    if (info.isDirectory()) {
      const names = (await readdir(path, { withFileTypes: true })).filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => e.name);
      for (const name of names.sort(compareNames)) files.push(join(path, name));
    } else {
      files.push(path);
    }
  }
  if (files.length === 0) throw new SbevalError('input', 'no prompt files given', 'pass prompt files or a folder of prompt files');
  return files;
}

/** Official team name: `promptFile.split('.').slice(0, -1).join('.')` (empty for a name without a dot). */
function teamOf(file: string): string {
  const name = basename(file);
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(0, dot);
}

export async function runQualifyStage(options: QualifyStageOptions, progress: ProgressSink = SILENT_PROGRESS): Promise<QualifyStageResult> {
  const now = options.now ?? (() => new Date());
  const files = await expand(options.paths);
  const copyTo = options.copyTo;
  // The folder qualified prompts go to is a root of the one write guard (core/write-guard.ts): a link
  // inside it is refused, never written through; the log is a line file like every stage log.
  const withdraw = copyTo !== undefined ? confineWrites(copyTo) : () => undefined;
  const log = copyTo !== undefined ? new LineFile(join(copyTo, 'logs', `qualified_log_${logFileStamp(now())}.txt`)) : undefined;
  const summary: StageSummary = { stage: 'qualify', succeeded: 0, failed: 0, skipped: 0, reasons: new Map(), logFile: log?.file };
  const prompts: PromptVerdict[] = [];
  progress.start('qualify', files.length);
  try {
    log?.open();
    for (const file of files) {
      // Official: fs.promises.readFile(path, 'utf-8').
      const text = await readFile(file, 'utf8');
      const verdict = qualify(text);
      const team = teamOf(file);
      prompts.push({ file, team, verdict });
      if (log) {
        log.append(logLines(team, verdict, now));
        if (verdict.qualified) await writeFileAtomic(join(copyTo!, basename(file)), await readFile(file));
      }
      count(summary, verdict, basename(file), progress);
    }
  } finally {
    progress.end('qualify');
    withdraw();
  }
  return { prompts, summary };
}

/** The official log's lines for one prompt: one per check, up to the first that failed (the script stops there). */
function logLines(team: string, verdict: QualificationVerdict, now: () => Date): string {
  let lines = '';
  for (const check of verdict.checks) {
    lines += `[${now().toISOString().replaceAll(':', '_')}] Processing - team: ${team} - ${check.check}: ${check.ok ? 'Success' : 'Failed'}\n`;
    if (!check.ok) break;
  }
  return lines;
}

function count(summary: StageSummary, verdict: QualificationVerdict, name: string, progress: ProgressSink): void {
  if (verdict.qualified) {
    summary.succeeded++;
    progress.tick('qualify', 'ok', name);
    return;
  }
  summary.failed++;
  const reason = failureReason(verdict);
  summary.reasons.set(reason, (summary.reasons.get(reason) ?? 0) + 1);
  progress.tick('qualify', 'failed', name, reason);
}

/** A short reason per failed check, for summaries. */
export function failureReason(verdict: QualificationVerdict): string {
  switch (verdict.failedCheck) {
    case 'maxLength':
      return `maxLength: more than ${verdict.maxWords} words`;
    case 'disallowChars':
      return 'disallowChars: disallowed characters';
    case 'objectToken':
      return 'objectToken: no <OBJECT> token';
    default:
      return '';
  }
}
