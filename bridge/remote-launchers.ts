import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SbevalError } from '../core/errors.js';
import { nodeArgsFor, siblingModule } from '../core/node-entry.js';
import type { InstanceInfo, InstanceLauncher, LaunchSpec } from './remote-fleet.js';
import { nextStage, stageReached } from './unity-log.js';

/**
 * How to start each kind of engine instance. The harness picks the endpoint (port from the OS) and a
 * fresh token; instances get the URL and their name in argv and the token in the environment
 * (`SBEVAL_TOKEN`), so it does not show up in `ps`.
 */

/** The headless worker process (`bridge/worker-process`, what `sbeval engine` runs) as a child (from sources via tsx, or from dist). */
export function headlessWorkerLauncher(options: { connectTimeoutMs?: number } = {}): InstanceLauncher {
  const main = siblingModule(import.meta.url, './worker-process.js');
  const { execArgv, file } = nodeArgsFor(main);
  // From sources, `--import tsx` is resolved from the working directory: run in the package root.
  const packageRoot = resolve(dirname(fileURLToPath(main)), file.endsWith('.js') ? '../..' : '..');
  return {
    kind: 'headless-ws',
    connectTimeoutMs: options.connectTimeoutMs ?? 60_000,
    spec: (instance: InstanceInfo): LaunchSpec => ({
      file: process.execPath,
      args: [...execArgv, file, '--connect', instance.url, '--instance', instance.name],
      env: { SBEVAL_TOKEN: instance.token },
      cwd: packageRoot,
      captureOutput: true,
    }),
  };
}

/** The plugin's batchmode entry point (unity-plugin/Editor/SbevalBatchEntry.cs). */
export const UNITY_ENTRY_METHOD = 'Sbeval.Bridge.EditorTools.SbevalBatchEntry.Run';

export interface UnityLaunchOptions {
  /** The Unity editor binary (macOS: `/Applications/Unity/Hub/Editor/2019.4.40f1/Unity.app/Contents/MacOS/Unity`). */
  editor: string;
  /** The Science Birds project with the plugin installed (`sbeval unity install`). */
  project: string;
  /** More editor arguments (e.g. `-force-metal`). */
  extraArgs?: string[];
  /** Default 5 minutes: a cold editor imports the project before it runs the entry point. */
  connectTimeoutMs?: number;
}

/**
 * Unity editors in batch mode WITH rendering (no `-nographics`: the capture needs the GPU), one per
 * instance. An editor locks its project, so instance i > 0 runs on a clone next to the project whose
 * Assets, Packages and ProjectSettings are symlinks to the original and whose Library is its own
 * (the first start of a clone imports the project once).
 */
export function unityLauncher(options: UnityLaunchOptions): InstanceLauncher {
  const project = resolve(options.project);
  return {
    kind: 'unity',
    connectTimeoutMs: options.connectTimeoutMs ?? 300_000,
    progress: (log) => {
      const stage = stageReached(log);
      return stage ? `it reached "${stage}", not "${nextStage(stage) ?? 'a level'}"` : 'it wrote no log';
    },
    prepare: async (count: number) => {
      checkUnityProject(project);
      if (!existsSync(options.editor)) throw new SbevalError('launch', `Unity editor not found: ${options.editor}`, 'pass the editor binary with --unity');
      for (let i = 1; i < count; i += 1) ensureProjectClone(project, i);
    },
    spec: (instance: InstanceInfo): LaunchSpec => ({
      file: options.editor,
      args: [
        '-batchmode',
        '-projectPath',
        projectFor(project, instance.index),
        '-executeMethod',
        UNITY_ENTRY_METHOD,
        '-logFile',
        instance.logFile,
        '-sbevalUrl',
        instance.url,
        '-sbevalInstance',
        instance.name,
        ...(options.extraArgs ?? []),
      ],
      env: { SBEVAL_TOKEN: instance.token },
      captureOutput: false,
    }),
  };
}

/** The project folder instance `index` opens. */
function projectFor(project: string, index: number): string {
  return index === 0 ? project : join(dirname(project), `${basename(project)}.sbeval-${index}`);
}

/** Throws unless `project` looks like a Science Birds Unity project. */
export function checkUnityProject(project: string): void {
  const marker = join(project, 'Assets', 'Scripts', 'GameWorld', 'ABGameWorld.cs');
  if (!existsSync(join(project, 'ProjectSettings')) || !existsSync(marker)) {
    throw new SbevalError(
      'launch',
      `${project} is not a Science Birds Unity project (no ProjectSettings/ or Assets/Scripts/GameWorld/ABGameWorld.cs)`,
      'clone https://github.com/chatgpt4pcg/modified-science-birds and point --project at it',
    );
  }
}

const SHARED_FOLDERS = ['Assets', 'Packages', 'ProjectSettings'];

/** Creates (or checks) the clone of `project` for instance `index`. */
function ensureProjectClone(project: string, index: number): string {
  const clone = projectFor(project, index);
  mkdirSync(clone, { recursive: true });
  for (const folder of SHARED_FOLDERS) {
    const source = join(project, folder);
    const target = join(clone, folder);
    if (!existsSync(source)) continue;
    if (existsSync(target) || isDanglingLink(target)) {
      if (!lstatSync(target).isSymbolicLink()) {
        throw new SbevalError('launch', `${target} exists and is not a link to ${source}`, `remove ${clone} and launch again`);
      }
      continue;
    }
    symlinkSync(source, target, 'dir');
  }
  const note = join(clone, 'SBEVAL-CLONE.txt');
  const text = `Clone of ${project} for sbeval Unity instance ${index}: Assets, Packages and ProjectSettings are links; Library is this clone's own.\n`;
  if (!existsSync(note) || readFileSync(note, 'utf8') !== text) writeFileSync(note, text);
  return clone;
}

function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The editor and project of `--engine unity` when no options name them: SBEVAL_UNITY_EDITOR and SBEVAL_UNITY_PROJECT. */
export function unityFromEnvironment(env: NodeJS.ProcessEnv = process.env): UnityLaunchOptions {
  const editor = env.SBEVAL_UNITY_EDITOR;
  const project = env.SBEVAL_UNITY_PROJECT;
  if (!editor || !project) {
    throw new SbevalError(
      'config',
      'the unity engine needs the editor binary and the Science Birds project',
      'set SBEVAL_UNITY_EDITOR and SBEVAL_UNITY_PROJECT (see unity-plugin/README.md)',
    );
  }
  return { editor, project };
}
