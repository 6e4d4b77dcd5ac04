import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Settings } from 'planck';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATION, type LevelJob } from '../../bridge/engine.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { BOX2D_CONSTANTS } from '../../bridge/headless/settings.js';
import { memorySink } from '../../bridge/memory-sink.js';
import { REFERENCE_LEVELS } from '../helpers/cli.js';

/**
 * An engine's Box2D overrides (`HeadlessEngineOptions.box2d`, what `sbeval verify --box2d` replays
 * with) reach its own trials only: planck's globals hold the evaluator's values before and after each
 * of its runs, and another engine of the same process streams what it streams alone.
 */
const xml = readFileSync(join(REFERENCE_LEVELS, 'v1', 'levels', 'L', 'V1_L_1.xml'), 'utf8');
const job: LevelJob = { levelId: 'V1_L_1', xml, settings: { ...DEFAULT_SIMULATION, capture: false } };

async function states(engine: HeadlessEngine): Promise<number[]> {
  const { sink, data } = memorySink();
  await engine.run(job, sink);
  return data.frames.flatMap((batch) => [...batch.states]);
}

describe("a headless engine's Box2D overrides", () => {
  it("change its own trials and no other engine's; planck keeps the evaluator's values", async () => {
    const plain = new HeadlessEngine();
    const changed = new HeadlessEngine(undefined, { box2d: { baumgarte: 0.1 } });
    const again = new HeadlessEngine(undefined, { box2d: { baumgarte: 0.1 } });
    try {
      const alone = await states(plain);
      const overridden = await states(changed);
      expect(Settings.baumgarte).toBe(BOX2D_CONSTANTS.baumgarte);
      const after = await states(plain);
      expect(overridden).not.toEqual(alone);
      expect(after).toEqual(alone);
      // The same overrides on another engine give the same stream: they are the engine's, not left behind.
      expect(await states(again)).toEqual(overridden);
    } finally {
      await Promise.all([plain.close(), changed.close(), again.close()]);
    }
  });

  it('are refused when a name is unknown or a value is not a finite number', () => {
    expect(() => new HeadlessEngine(undefined, { box2d: { baumgarde: 0.1 } as never })).toThrow(/unknown Box2D constant "baumgarde"/);
    expect(() => new HeadlessEngine(undefined, { box2d: { baumgarte: Number.NaN } })).toThrow(/baumgarte needs a finite number/);
  });
});
