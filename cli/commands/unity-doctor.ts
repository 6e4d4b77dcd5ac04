import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { option, wholeNumber } from '../options.js';
import { type DoctorCheck, fail, notRun, pass } from '../unity-doctor/checks.js';
import { editorChecks } from '../unity-doctor/editor.js';
import { graphicsCheck, ocrCheck, pluginCheck, projectEditorVersion, scenesCheck } from '../unity-doctor/project.js';
import { unityEditorOption, unityProjectOption } from '../unity-fleet.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/**
 * `sbeval unity doctor --unity <editor> --project <folder>`: the preflight an organizer runs first.
 * One line per check with its verdict and, when it failed, the fix: the project's files
 * (cli/unity-doctor/project.ts), then one editor started with its own deadline, two levels run on it
 * and how it quit (cli/unity-doctor/editor.ts). Exit 0 only when every check passes.
 */
interface DoctorFlags {
  unity: string;
  project: string;
  deadline: number;
  logDir?: string;
  json?: boolean;
}

/** The editor's version from its installation (macOS: Unity.app/Contents/Info.plist, else a version in its path). */
function installedVersion(editor: string): string | undefined {
  const plist = join(dirname(editor), '..', 'Info.plist');
  if (existsSync(plist)) {
    const v = /<key>CFBundleVersion<\/key>\s*<string>([^<]+)<\/string>/.exec(readFileSync(plist, 'utf8'))?.[1];
    if (v) return v;
  }
  return /\b(\d{4}\.\d+\.\d+[abfp]\d+)\b/.exec(editor)?.[1];
}

/** A Unity version without what follows it (`2019.4.40f1-double` → `2019.4.40f1`). */
const versionCore = (v: string): string => /^\d+\.\d+\.\d+[a-z]\d+/.exec(v)?.[0] ?? v;

function versionCheck(project: string, editor: string, reported: string | undefined): DoctorCheck {
  const wanted = projectEditorVersion(project);
  const fix = `install Unity ${wanted ?? '2019.4.40f1'} (Unity Hub, the download archive) and pass its binary with --unity`;
  if (!wanted) return fail('editor version', 'ProjectSettings/ProjectVersion.txt names no m_EditorVersion', 'point --project at the Unity project folder');
  const has = reported ?? installedVersion(editor);
  if (!has) return notRun('editor version', `the project wants ${wanted}; the editor's version is known once it starts`);
  const source = reported ? 'the editor reports' : 'the installation says';
  return versionCore(has) === wanted
    ? pass('editor version', `${wanted} (${source} ${has})`)
    : fail('editor version', `the project wants ${wanted}; ${source} ${has}`, fix);
}

async function doctor(flags: DoctorFlags): Promise<number> {
  const project = resolve(flags.project);
  const log = (line: string): void => {
    process.stderr.write(`unity doctor: ${line}\n`);
  };
  const files = [pluginCheck(project), scenesCheck(project), ocrCheck(project)];
  log(`starting one editor (deadline ${flags.deadline} s)`);
  const editor = await editorChecks(
    { unity: resolve(flags.unity), project, deadline: flags.deadline, ...(flags.logDir ? { logDir: resolve(flags.logDir) } : {}) },
    log,
  );
  const checks = [versionCheck(project, flags.unity, editor.identity?.version), ...files, graphicsCheck(project, editor.device), ...editor.checks];
  const ok = checks.every((c) => c.verdict === 'pass');
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ ok, stage: editor.stage ?? null, logFile: editor.logFile, checks }, null, 2)}\n`);
  } else {
    const width = Math.max(...checks.map((c) => c.check.length));
    for (const c of checks) {
      const verdict = c.verdict === 'pass' ? 'ok     ' : c.verdict === 'fail' ? 'FAIL   ' : 'not run';
      process.stdout.write(`${verdict} ${c.check.padEnd(width)}  ${c.detail}${c.fix ? ` — fix: ${c.fix}` : ''}\n`);
    }
    process.stdout.write(
      `${ok ? 'every check passed' : `${checks.filter((c) => c.verdict !== 'pass').length} check(s) did not pass`}; editor log ${editor.logFile}\n`,
    );
  }
  return ok ? 0 : 1;
}

export function registerDoctorCommand(unity: Command): void {
  unity
    .command('doctor')
    .description(
      'preflight a Unity install: the project, the plugin, one editor started, two levels run on it, its capture and how it quit; exit 1 unless every check passes',
    )
    .addOption(unityEditorOption(true))
    .addOption(unityProjectOption(true))
    .addOption(option('--deadline <seconds>', 'how long the editor may take to start and connect', { parse: wholeNumber(1), default: 180 }))
    .addOption(option('--log-dir <dir>', "where the editor's log goes", { defaultText: 'a new temporary folder' }))
    .option('--json', 'print the checks as JSON (the same fields)')
    .action(async (flags: DoctorFlags) => {
      process.exitCode = await doctor(flags);
    });
}

/** The `unity` group with only `doctor` in it: what `sbeval unity doctor` loads (cli/commands/index.ts). */
export function registerUnityDoctorOnly(program: Command): void {
  registerDoctorCommand(program.command('unity').description(COMMAND_SUMMARIES.unity));
}
