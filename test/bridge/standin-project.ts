import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadReference } from '../../orchestrator/stages/agreement.js';
import { loadRuler } from '../../orchestrator/stages/ruler.js';
import { type CliResult, runSbeval } from '../helpers/cli.js';
import { runShared } from '../helpers/run-cache.js';
import { type HeadlessPass, headlessPasses, writeScripts } from './double.js';

/**
 * What a `sbeval unity calibrate` test needs around the stand-in editor: a folder that looks like the
 * Science Birds project with the plugin installed the real way (by `sbeval unity install`, from the
 * checkout or from an installed package), and the headless passes of the ruler levels for the scripts.
 */
export async function scienceBirdsProject(at: string, sbeval: (args: string[]) => Promise<CliResult> = runSbeval): Promise<string> {
  mkdirSync(join(at, 'ProjectSettings'), { recursive: true });
  mkdirSync(join(at, 'Assets', 'Scripts', 'GameWorld'), { recursive: true });
  writeFileSync(join(at, 'Assets', 'Scripts', 'GameWorld', 'ABGameWorld.cs'), '// stand-in\n');
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
