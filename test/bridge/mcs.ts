import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../helpers/cli.js';

/**
 * Builds the Unity plugin with Mono's `mcs` the way `npm run unity:check` does: the test double's
 * UnityEngine, UnityEditor and fake Science Birds game (unity-plugin/TestDouble, with Unity 2019.4's
 * and the game's public signatures), then the plugin against them (editor and player flavours), the
 * protocol core alone (proving it needs no UnityEngine), the mono test program, and the stand-in
 * editor: a folder `standin/` holding exactly what a Unity editor with the plugin installed would
 * load (the double, the game, the editor-flavour plugin) plus SbevalStandInEditor.exe, and
 * `standin-broken/`, the same with a UnityEngine built with a deliberately wrong player-loop order
 * (physics before FixedUpdate). The language level is pinned to mcs's C# 7.2 and warnings are errors.
 */
/** The plugin sources to build: the checkout's, or a mutated copy (SBEVAL_UNITY_PLUGIN, set by `npm run unity:mutants`). */
export const PLUGIN = process.env.SBEVAL_UNITY_PLUGIN ? resolve(process.env.SBEVAL_UNITY_PLUGIN) : join(PROJECT_ROOT, 'unity-plugin');
const DOUBLE = join(PLUGIN, 'TestDouble');

export function csFiles(dir: string, recursive = false): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (recursive) out.push(...csFiles(path, true));
    } else if (name.endsWith('.cs')) out.push(path);
  }
  return out;
}

export interface CompileResult {
  ok: boolean;
  output: string;
}

export async function mcs(args: string[]): Promise<CompileResult> {
  const result = await execa('mcs', ['-langversion:7.2', '-warnaserror', '-nologo', ...args], { reject: false, all: true });
  return { ok: result.exitCode === 0, output: String(result.all ?? '') };
}

export interface PluginBuild {
  dir: string;
  core: string;
  checkExe: string;
  /** The stand-in editor (run with mono) and its folder. */
  standIn: string;
  /** The same stand-in on a UnityEngine double whose player loop steps physics before FixedUpdate. */
  brokenStandIn: string;
  steps: Array<{ name: string } & CompileResult>;
}

/** The assemblies a Unity editor with the plugin installed loads, as the stand-in finds them next to it. */
const STANDIN_ASSEMBLIES = ['UnityEngine.dll', 'UnityEditor.dll', 'Assembly-CSharp-Game.dll', 'Sbeval.Plugin.Editor.dll', 'Sbeval.Plugin.EditorScripts.dll'];

/** Compiles everything into `dir`; each step's result is reported (the test asserts on all of them). */
export async function buildPlugin(dir: string): Promise<PluginBuild> {
  const out = (name: string): string => join(dir, name);
  const steps: PluginBuild['steps'] = [];
  const step = async (name: string, args: string[]): Promise<void> => {
    steps.push({ name, ...(await mcs(args)) });
  };
  const system = ['-r:System.dll', '-r:System.Core.dll', '-r:System.Xml.dll'];
  const engineSources = csFiles(join(DOUBLE, 'UnityEngine'), true);
  await step('double UnityEngine', ['-target:library', `-out:${out('UnityEngine.dll')}`, ...system, ...engineSources]);
  await step('double UnityEditor', [
    '-target:library',
    `-out:${out('UnityEditor.dll')}`,
    `-r:${out('UnityEngine.dll')}`,
    ...system,
    ...csFiles(join(DOUBLE, 'UnityEditor'), true),
  ]);
  await step('double Science Birds', [
    '-target:library',
    `-out:${out('Assembly-CSharp-Game.dll')}`,
    `-r:${out('UnityEngine.dll')}`,
    `-r:${out('UnityEditor.dll')}`,
    ...system,
    ...csFiles(join(DOUBLE, 'Game'), true),
  ]);
  const runtime = csFiles(join(PLUGIN, 'Runtime'));
  const unity = csFiles(join(PLUGIN, 'Runtime', 'Unity'));
  const editor = csFiles(join(PLUGIN, 'Editor'));
  const refs = [`-r:${out('UnityEngine.dll')}`, `-r:${out('Assembly-CSharp-Game.dll')}`, ...system];
  // The protocol core alone, with no Unity assembly available: it must not need one.
  await step('protocol core (no UnityEngine)', ['-target:library', `-out:${out('Sbeval.Bridge.Core.dll')}`, ...system, ...runtime]);
  // As Unity compiles it in the editor (UNITY_EDITOR defined, editor scripts in their own assembly).
  await step('plugin, editor', [
    '-target:library',
    '-define:UNITY_EDITOR',
    `-out:${out('Sbeval.Plugin.Editor.dll')}`,
    `-r:${out('UnityEditor.dll')}`,
    ...refs,
    ...runtime,
    ...unity,
  ]);
  await step('plugin editor scripts', [
    '-target:library',
    '-define:UNITY_EDITOR',
    `-out:${out('Sbeval.Plugin.EditorScripts.dll')}`,
    `-r:${out('UnityEditor.dll')}`,
    `-r:${out('Sbeval.Plugin.Editor.dll')}`,
    ...refs,
    ...editor,
  ]);
  // As a player build compiles it (no UNITY_EDITOR, no editor scripts).
  await step('plugin, player', ['-target:library', `-out:${out('Sbeval.Plugin.Player.dll')}`, ...refs, ...runtime, ...unity]);
  await step('mono test program', [
    '-target:exe',
    `-out:${out('ProtocolCheck.exe')}`,
    `-r:${out('Sbeval.Bridge.Core.dll')}`,
    ...system,
    ...csFiles(join(PLUGIN, 'Tests')),
  ]);

  // The stand-in editor, next to exactly the assemblies a project with the plugin installed loads.
  const standInDir = out('standin');
  const brokenDir = out('standin-broken');
  for (const d of [standInDir, brokenDir]) mkdirSync(d, { recursive: true });
  for (const name of STANDIN_ASSEMBLIES) if (existsSync(out(name))) copyFileSync(out(name), join(standInDir, name));
  await step('stand-in editor', [
    '-target:exe',
    `-out:${join(standInDir, 'SbevalStandInEditor.exe')}`,
    `-r:${out('UnityEngine.dll')}`,
    `-r:${out('UnityEditor.dll')}`,
    `-r:${out('Assembly-CSharp-Game.dll')}`,
    ...system,
    ...csFiles(join(DOUBLE, 'StandIn'), true),
  ]);
  for (const name of [...STANDIN_ASSEMBLIES, 'SbevalStandInEditor.exe']) {
    if (name !== 'UnityEngine.dll' && existsSync(join(standInDir, name))) copyFileSync(join(standInDir, name), join(brokenDir, name));
  }
  await step('double UnityEngine, broken player loop', [
    '-target:library',
    '-define:SBEVAL_DOUBLE_BROKEN_PLAYER_LOOP',
    `-out:${join(brokenDir, 'UnityEngine.dll')}`,
    ...system,
    ...engineSources,
  ]);
  return {
    dir,
    core: out('Sbeval.Bridge.Core.dll'),
    checkExe: out('ProtocolCheck.exe'),
    standIn: join(standInDir, 'SbevalStandInEditor.exe'),
    brokenStandIn: join(brokenDir, 'SbevalStandInEditor.exe'),
    steps,
  };
}

/**
 * One build per set of sources, shared by the test files that need it (they run in parallel): built
 * once into a folder named by the sources' hash under the OS temp folder, with a lock folder holding
 * the builder's pid; the others wait for the result (a builder that died leaves a lock whose pid is
 * gone, and the next caller builds instead).
 */
export async function sharedPluginBuild(): Promise<PluginBuild> {
  const hash = createHash('sha256');
  for (const file of csFiles(PLUGIN, true)) hash.update(file).update(readFileSync(file));
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  const final = join(tmpdir(), `sbeval-unity-build-${hash.digest('hex').slice(0, 16)}`);
  const result = join(final, 'steps.json');
  const lock = `${final}.lock`;
  const deadline = Date.now() + 15 * 60_000;
  while (!existsSync(result)) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for the plugin build in ${final}`);
    if (tryLock(lock)) {
      try {
        if (!existsSync(result)) {
          const work = `${final}.tmp-${process.pid}`;
          rmSync(work, { recursive: true, force: true });
          mkdirSync(work, { recursive: true });
          const build = await buildPlugin(work);
          writeFileSync(join(work, 'steps.json'), JSON.stringify(build.steps));
          rmSync(final, { recursive: true, force: true });
          renameSync(work, final);
        }
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const steps = JSON.parse(readFileSync(result, 'utf8')) as PluginBuild['steps'];
  return {
    dir: final,
    core: join(final, 'Sbeval.Bridge.Core.dll'),
    checkExe: join(final, 'ProtocolCheck.exe'),
    standIn: join(final, 'standin', 'SbevalStandInEditor.exe'),
    brokenStandIn: join(final, 'standin-broken', 'SbevalStandInEditor.exe'),
    steps,
  };
}

function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(process.pid));
    return true;
  } catch {
    // Held: take it over only if its holder is gone.
    let pid = Number.NaN;
    try {
      pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    } catch {
      return false; // being created right now
    }
    if (Number.isInteger(pid) && !alive(pid)) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
