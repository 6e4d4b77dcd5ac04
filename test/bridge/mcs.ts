import { execa } from 'execa';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../helpers/cli.js';

/**
 * Builds the Unity plugin with Mono's `mcs` the way `npm run unity:check` does: stub assemblies for
 * UnityEngine, UnityEditor and the Science Birds game types, then the plugin against them (editor and
 * player flavours), the protocol core alone (proving it needs no UnityEngine), and the mono test
 * program. The language level is pinned to mcs's C# 7.2 and warnings are errors.
 */
export const PLUGIN = join(PROJECT_ROOT, 'unity-plugin');

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
  steps: Array<{ name: string } & CompileResult>;
}

/** Compiles everything into `dir`; each step's result is reported (the test asserts on all of them). */
export async function buildPlugin(dir: string): Promise<PluginBuild> {
  const out = (name: string): string => join(dir, name);
  const steps: PluginBuild['steps'] = [];
  const step = async (name: string, args: string[]): Promise<void> => {
    steps.push({ name, ...(await mcs(args)) });
  };
  const system = ['-r:System.dll', '-r:System.Core.dll', '-r:System.Xml.dll'];
  await step('stub UnityEngine', ['-target:library', `-out:${out('UnityEngine.dll')}`, ...system, ...csFiles(join(PLUGIN, 'stubs', 'UnityEngine'), true)]);
  await step('stub UnityEditor', ['-target:library', `-out:${out('UnityEditor.dll')}`, `-r:${out('UnityEngine.dll')}`, ...system, ...csFiles(join(PLUGIN, 'stubs', 'UnityEditor'), true)]);
  await step('stub Science Birds', ['-target:library', `-out:${out('Assembly-CSharp-Game.dll')}`, `-r:${out('UnityEngine.dll')}`, ...system, ...csFiles(join(PLUGIN, 'stubs', 'Game'), true)]);
  const runtime = csFiles(join(PLUGIN, 'Runtime'));
  const unity = csFiles(join(PLUGIN, 'Runtime', 'Unity'));
  const editor = csFiles(join(PLUGIN, 'Editor'));
  const refs = [`-r:${out('UnityEngine.dll')}`, `-r:${out('Assembly-CSharp-Game.dll')}`, ...system];
  // The protocol core alone, with no Unity assembly available: it must not need one.
  await step('protocol core (no UnityEngine)', ['-target:library', `-out:${out('Sbeval.Bridge.Core.dll')}`, ...system, ...runtime]);
  // As Unity compiles it in the editor (UNITY_EDITOR defined, editor scripts in their own assembly).
  await step('plugin, editor', ['-target:library', '-define:UNITY_EDITOR', `-out:${out('Sbeval.Plugin.Editor.dll')}`, `-r:${out('UnityEditor.dll')}`, ...refs, ...runtime, ...unity]);
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
  await step('mono test program', ['-target:exe', `-out:${out('ProtocolCheck.exe')}`, `-r:${out('Sbeval.Bridge.Core.dll')}`, ...system, ...csFiles(join(PLUGIN, 'Tests'))]);
  return { dir, core: out('Sbeval.Bridge.Core.dll'), checkExe: out('ProtocolCheck.exe'), steps };
}
