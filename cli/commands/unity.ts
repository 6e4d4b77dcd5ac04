import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { type CaptureResult, DEFAULT_SIMULATION, type EngineIdentity, type LevelJob, type LevelSink } from '../../bridge/engine.js';
import { checkUnityProject, UNITY_ENTRY_METHOD } from '../../bridge/remote-launchers.js';
import { TraceRecorder, teeSinks } from '../../bridge/trace.js';
import { describeError, SbevalError } from '../../core/errors.js';
import { writeFileAtomic } from '../../orchestrator/layout/atomic.js';
import { EnginePool } from '../../orchestrator/pool/index.js';
import { loadRuler } from '../../orchestrator/stages/ruler.js';
import { option, repeatable, wholeNumber } from '../options.js';
import { startUnityFleet, unityEditorOption, unityProjectOption } from '../unity-fleet.js';
import { INSTALL_DIR, INSTALLED, MARKER_FILE, markerText, pluginSource } from '../unity-plugin-files.js';
import { COMMAND_SUMMARIES } from './summaries.js';
import { registerCalibrateCommand } from './unity-calibrate.js';
import { registerDoctorCommand } from './unity-doctor.js';

/**
 * `sbeval unity install <project>`: copies the plugin into a Science Birds Unity project.
 * `sbeval unity launch --unity <editor> --project <path>`: starts Unity instances in batch mode that
 * dial a fresh endpoint, watches them (one log each, restart when one dies, bye → SIGTERM → SIGKILL
 * at the end) and feeds them levels, writing a trace and the capture of each.
 * `sbeval unity calibrate --unity <editor> --project <path>`: the reference levels through Unity and
 * the headless engine, compared with the evaluator's own results; exit 1 below the thresholds.
 */

function installPlugin(project: string, force: boolean): { target: string; files: number } {
  const root = resolve(project);
  checkUnityProject(root);
  const target = join(root, INSTALL_DIR);
  if (existsSync(target)) {
    if (!force) throw new SbevalError('config', `${target} already exists`, 'pass --force to replace the installed plugin');
    for (const entry of INSTALLED) rmSync(join(target, entry), { recursive: true, force: true });
  }
  mkdirSync(target, { recursive: true });
  const source = pluginSource();
  for (const entry of INSTALLED) cpSync(join(source, entry), join(target, entry), { recursive: true });
  writeFileSync(join(target, MARKER_FILE), markerText());
  return { target, files: countFiles(target) };
}

function countFiles(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) n += entry.isDirectory() ? countFiles(join(dir, entry.name)) : 1;
  return n;
}

/** Copies the shipped ruler levels to `<dir>/levels/<group>/<name>.xml` (the layout the Batch Stability Test walks); returns how many. */
function writeRulerLevels(dir: string): number {
  const ruler = loadRuler();
  for (const level of ruler.levels) {
    mkdirSync(join(dir, 'levels', level.group), { recursive: true });
    writeFileSync(join(dir, 'levels', level.group, `${level.name}.xml`), level.xml);
  }
  return ruler.levels.length;
}

/** Level files to feed: XML files given directly or found (recursively) in given folders, in name order. */
function collectLevels(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (path: string): void => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path).sort()) walk(join(path, name));
    } else if (path.toLowerCase().endsWith('.xml')) out.push(path);
  };
  for (const p of paths) {
    if (!existsSync(p)) throw new SbevalError('input', `no such file or folder: ${p}`);
    walk(resolve(p));
  }
  return out;
}

interface LaunchFlags {
  unity: string;
  project: string;
  instances: number;
  levels?: string[];
  out?: string;
  windowSteps: number;
  raw?: boolean;
  logDir?: string;
  connectTimeout: number;
  maxRestarts: number;
  attempts: number;
  json?: boolean;
}

interface LevelOutcome {
  level: string;
  ok: boolean;
  engine?: string;
  attempts: number;
  reason?: string;
  trace?: string;
  image?: string;
}

async function launch(flags: LaunchFlags): Promise<number> {
  const log = (line: string): void => {
    process.stderr.write(`unity: ${line}\n`);
  };
  const levels = collectLevels(flags.levels ?? []);
  if (levels.length > 0 && !flags.out) throw new SbevalError('config', '--levels needs --out (where traces and images go)');
  const fleet = await startUnityFleet(flags, log);
  let stopping = false;
  const onSignal = (): void => {
    if (stopping) return;
    stopping = true;
    log('stopping: quitting the instances');
    void fleet.close();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const outcomes: LevelOutcome[] = [];
  try {
    for (const engine of fleet.engines)
      log(`${engine.id} ready: ${engine.identity.kind} ${engine.identity.version} (${engine.identity.description}), log ${engine.logFile}`);
    if (levels.length > 0) {
      const out = resolve(flags.out as string);
      const base = levels.length === 1 ? dirname(levels[0] as string) : commonDir(levels);
      // A run may wait for its instance to restart (an editor needs minutes): the pool's watchdogs allow for it.
      const restartMs = flags.connectTimeout * 1000;
      // The levels are run to see what Unity does: its level faults are its answer, not claims for the
      // headless referee to overrule (orchestrator/pool/claims.ts), so no referee here.
      const pool = new EnginePool({
        engines: fleet.engines,
        referee: false,
        maxAttempts: flags.attempts,
        stallMs: restartMs + 60_000,
        jobTimeoutMs: restartMs + 300_000,
      });
      try {
        await Promise.all(
          levels.map(async (file) => {
            const name = relative(base, file).replace(/\.xml$/i, '');
            outcomes.push(await runLevel(pool, fleet.engines[0]?.identity as EngineIdentity, name, file, out, flags));
          }),
        );
      } finally {
        await pool.close();
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await fleet.close();
  }
  outcomes.sort((a, b) => (a.level < b.level ? -1 : a.level > b.level ? 1 : 0));
  const failed = outcomes.filter((o) => !o.ok).length;
  const summary = {
    instances: flags.instances,
    restarts: fleet.restarts,
    logDir: fleet.logDir,
    levels: outcomes.length,
    succeeded: outcomes.length - failed,
    failed,
    outcomes,
  };
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    for (const o of outcomes) {
      process.stdout.write(
        o.ok ? `ok      ${o.level} (${o.engine}, ${o.attempts} attempt${o.attempts === 1 ? '' : 's'})\n` : `failed  ${o.level}: ${o.reason}\n`,
      );
    }
    process.stdout.write(
      `${flags.instances} instance(s), ${fleet.restarts} restart(s); ${summary.succeeded} level(s) done, ${failed} failed; logs in ${fleet.logDir}\n`,
    );
  }
  return failed > 0 ? 1 : 0;
}

function commonDir(files: string[]): string {
  let dir = dirname(files[0] as string);
  while (!files.every((f) => f.startsWith(`${dir}/`))) dir = dirname(dir);
  return dir;
}

async function runLevel(pool: EnginePool, identity: EngineIdentity, name: string, file: string, out: string, flags: LaunchFlags): Promise<LevelOutcome> {
  const xml = await readFile(file, 'utf8');
  const job: LevelJob = { levelId: name, xml, settings: { ...DEFAULT_SIMULATION, windowSteps: flags.windowSteps, captureRaw: flags.raw === true } };
  const tracePath = join(out, `${name}.sbtrace.gz`);
  mkdirSync(dirname(tracePath), { recursive: true });
  let capture: CaptureResult | undefined;
  const keepCapture: LevelSink = { loaded: () => {}, frames: () => {}, events: () => {}, capture: (c) => (capture = c) };
  let recorder: TraceRecorder | undefined;
  try {
    // The pool buffers each attempt and replays only the one that succeeded into this sink.
    const result = await pool.run({
      job,
      sink: () => {
        void recorder?.discard();
        recorder = new TraceRecorder(tracePath, { job, engine: identity });
        return teeSinks(recorder, keepCapture);
      },
    });
    await recorder?.finish();
    const outcome: LevelOutcome = { level: name, ok: true, engine: result.engineId, attempts: result.attempts.length, trace: tracePath };
    if (capture) {
      const image = join(out, `${name}.png`);
      await writeFileAtomic(image, capture.png);
      if (capture.raw) await writeFileAtomic(join(out, `${name}_raw.png`), capture.raw);
      outcome.image = image;
    }
    return outcome;
  } catch (error) {
    await recorder?.discard();
    const attempts = (error as { attempts?: unknown[] }).attempts?.length ?? 0;
    return { level: name, ok: false, attempts, reason: describeError(error) };
  }
}

export function registerUnityCommands(program: Command): void {
  const unity = program.command('unity').description(COMMAND_SUMMARIES.unity);

  unity
    .command('install')
    .description('copy the sbeval plugin into a Science Birds Unity project (Assets/Sbeval)')
    .argument('<project>', 'the Unity project folder (a clone of chatgpt4pcg/modified-science-birds)')
    .option('--force', 'replace an installed plugin')
    .action((project: string, flags: { force?: boolean }) => {
      const { target, files } = installPlugin(project, flags.force === true);
      process.stdout.write(
        `installed the sbeval plugin (${files} files) in ${target}\n` +
          `next: open the project once in Unity 2019.4 so it compiles, then\n` +
          `  sbeval unity launch --unity <editor binary> --project ${resolve(project)} --levels <folder> --out <folder>\n`,
      );
    });

  unity
    .command('launch')
    .description('start Unity instances in batch mode, connect them to a fresh endpoint, and feed them levels')
    .addOption(unityEditorOption(true))
    .addOption(unityProjectOption(true))
    .addOption(
      option('--instances <n>', 'editors to run side by side (instance i > 0 uses a linked clone of the project)', { parse: wholeNumber(1), default: 1 }),
    )
    .addOption(option('--levels <path>', 'a level XML file or a folder of them (repeatable); without it, start, check and quit', { parse: repeatable }))
    .addOption(option('--out <dir>', "where each level's trace (<name>.sbtrace.gz) and capture (<name>.png) go"))
    .addOption(
      option('--window-steps <n>', 'physics steps in the stability window (500 = 10 s)', { parse: wholeNumber(0), default: DEFAULT_SIMULATION.windowSteps }),
    )
    .option('--raw', 'also save the textured <name>_raw.png')
    .addOption(option('--log-dir <dir>', 'one log file per instance here', { defaultText: 'a new temporary folder' }))
    .addOption(option('--connect-timeout <seconds>', 'how long an editor may take to start and connect', { parse: wholeNumber(1), default: 300 }))
    .addOption(option('--max-restarts <n>', 'restarts allowed per instance', { parse: wholeNumber(0), default: 3 }))
    .addOption(option('--attempts <n>', 'attempts per level (a level whose instance dies runs again on another)', { parse: wholeNumber(1), default: 3 }))
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      '\nThe editors run with -batchmode (and rendering: the capture needs the GPU), -executeMethod ' +
        UNITY_ENTRY_METHOD +
        ',\n-sbevalUrl and -sbevalInstance; the token goes in SBEVAL_TOKEN. See unity-plugin/README.md.\n',
    )
    .action(async (flags: LaunchFlags) => {
      process.exitCode = await launch(flags);
    });

  registerCalibrateCommand(unity);
  registerDoctorCommand(unity);

  unity
    .command('ruler')
    .description("write the timing-ruler levels for the official evaluator's Batch Stability Test (then `sbeval unity calibrate --evaluator <dir>`)")
    .argument('<dir>', 'where to write them: <dir>/levels/<group>/*.xml (for example <project>/competition/sbeval-ruler)')
    .action((dir: string) => {
      const files = writeRulerLevels(resolve(dir));
      process.stdout.write(
        `wrote ${files} ruler levels to ${join(resolve(dir), 'levels')}\n` +
          `next: in the Unity editor, ICE > Evaluation > Batched > Stability Test (with only this folder under competition/), then\n` +
          `  sbeval unity calibrate --evaluator ${resolve(dir)}\n`,
      );
    });
}
