import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadReference } from '../../orchestrator/stages/agreement.js';
import { loadRuler } from '../../orchestrator/stages/ruler.js';
import { type CliResult, runSbeval } from '../helpers/cli.js';
import { runShared } from '../helpers/run-cache.js';
import { type HeadlessPass, headlessPasses, writeScripts } from './double.js';

/**
 * What a `sbeval unity calibrate` or `doctor` test needs around the stand-in editor: a folder that
 * looks like the Science Birds project — the files `sbeval unity doctor` reads, as the evaluator's
 * repository has them (chatgpt4pcg/modified-science-birds: ProjectVersion.txt, the build settings'
 * world scenes, the OCR asset, `metalEditorSupport: 0` in ProjectSettings.asset) — with the plugin
 * installed the real way (by `sbeval unity install`, from the checkout or from an installed package),
 * and the headless passes of the ruler levels for the scripts.
 */
export async function scienceBirdsProject(at: string, sbeval: (args: string[]) => Promise<CliResult> = runSbeval): Promise<string> {
  mkdirSync(join(at, 'ProjectSettings'), { recursive: true });
  mkdirSync(join(at, 'Assets', 'Scripts', 'GameWorld'), { recursive: true });
  mkdirSync(join(at, 'Assets', 'ICE', 'Settings'), { recursive: true });
  writeFileSync(join(at, 'Assets', 'Scripts', 'GameWorld', 'ABGameWorld.cs'), '// stand-in\n');
  writeFileSync(join(at, 'Assets', 'ICE', 'Settings', 'OCRSettings.asset'), '%YAML 1.1\n');
  writeFileSync(join(at, 'ProjectSettings', 'ProjectVersion.txt'), 'm_EditorVersion: 2019.4.40f1\nm_EditorVersionWithRevision: 2019.4.40f1 (ffc62b691db5)\n');
  writeFileSync(
    join(at, 'ProjectSettings', 'ProjectSettings.asset'),
    'PlayerSettings:\n  iOSMetalForceHardShadows: 0\n  metalEditorSupport: 0\n  metalAPIValidation: 1\n',
  );
  const scenes = ['Assets/Scenes/GameWorld.unity', 'Assets/ICE/Scenes/StabilityGameWorld.unity', 'Assets/ICE/Scenes/SimilarityGameWorld.unity'];
  writeFileSync(
    join(at, 'ProjectSettings', 'EditorBuildSettings.asset'),
    `EditorBuildSettings:\n  m_Scenes:\n${scenes.map((path, i) => `  - enabled: 1\n    path: ${path}\n    guid: ${String(i).padStart(32, '0')}\n`).join('')}`,
  );
  const installed = await sbeval(['unity', 'install', at]);
  expect(installed.exitCode, installed.stderr).toBe(0);
  return at;
}

/** The headless passes of the ruler levels, as long as `calibrate` runs them. */
export function rulerPasses(): HeadlessPass[] {
  const ruler = loadRuler();
  return headlessPasses(
    ruler.levels.map((l) => l.xml),
    ruler.windowSteps,
  );
}

/**
 * Scripts that make the double replay the headless engine on every level `calibrate` runs by default
 * (the 90 shipped reference levels and the ruler), made once per test run and shared by the files
 * that run it (from the checkout and from the installed package).
 */
export function defaultCalibrationScripts(): Promise<string> {
  return runShared('double-scripts-calibrate', (dir) => writeScripts(dir, [...headlessPasses(loadReference().map((l) => l.xml)), ...rulerPasses()]));
}
