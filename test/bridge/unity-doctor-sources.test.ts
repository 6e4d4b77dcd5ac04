import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNITY_STAGES } from '../../bridge/unity-log.js';
import { OCR_ASSET, WORLD_SCENES } from '../../cli/unity-doctor/project.js';
import { PLUGIN } from './mcs.js';

/**
 * What `sbeval unity doctor` reads about the plugin is what the plugin's C# says: the world scenes
 * LevelRun loads, the OCR asset CaptureRenderer loads, and the stage names SbevalStage logs.
 */
const cs = (file: string): string => readFileSync(join(PLUGIN, 'Runtime', 'Unity', file), 'utf8');

describe("the doctor's view of the plugin", () => {
  it('checks the scenes LevelRun.cs loads and the asset CaptureRenderer.cs loads', () => {
    const scenes = [...cs('LevelRun.cs').matchAll(/public const string \w+Scene = "([^"]+)";/g)].map((m) => m[1]);
    expect(scenes).toEqual(WORLD_SCENES);
    expect(/public const string OcrSettingsPath = "([^"]+)";/.exec(cs('CaptureRenderer.cs'))?.[1]).toBe(OCR_ASSET);
  });

  it("parses the stages SbevalStage.cs logs, after the launcher's own first one", () => {
    const logged = [...cs('SbevalStage.cs').matchAll(/public const string \w+ = "([^"]+)";/g)].map((m) => m[1]);
    expect(['editor started', ...logged]).toEqual([...UNITY_STAGES]);
  });
});
