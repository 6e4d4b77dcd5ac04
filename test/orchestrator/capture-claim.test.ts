import { describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { FIELD_COUNT } from '../../bridge/frames.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import type { FrameRow } from '../../bridge/headless/frame-image.js';
import { decodePng, encodePng } from '../../bridge/headless/png.js';
import { evaluatorWindow } from '../../bridge/window.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { checkCapture } from '../../orchestrator/pool/capture-claim.js';
import { referenceLevels } from '../../scripts/bench/mix.js';
import { bloated } from '../bridge/hostile/sessions.js';

/**
 * The capture check on real captures of the headless engine (reference levels): an honest capture
 * passes and is kept as sbeval encodes it, whatever its encoding (1-bit, or Unity's RGBA with a text
 * chunk); another level's capture, or one over the byte bound, is a lie.
 */
async function captured(xml: string): Promise<{ png: Uint8Array; rows: { bound: FrameRow; image: FrameRow } }> {
  const w = evaluatorWindow();
  let bodies = 0;
  let png: Uint8Array | undefined;
  const rows: Partial<Record<'bound' | 'image', FrameRow>> = {};
  await new HeadlessEngine().run(
    { levelId: 'x', xml, settings: { ...DEFAULT_SIMULATION, trial: 1, capture: true, captureRaw: false } },
    {
      loaded: (b) => (bodies = b.length),
      events: () => {},
      capture: (c) => (png = c.png),
      frames: (batch) => {
        for (const [which, step] of [
          ['bound', w.boundStep],
          ['image', w.imageStep],
        ] as const) {
          const s = step - batch.firstStep;
          if (s >= 0 && s < batch.stepCount)
            rows[which] = {
              states: batch.states.slice(s * bodies * FIELD_COUNT, (s + 1) * bodies * FIELD_COUNT),
              alive: batch.alive.slice(s * bodies, (s + 1) * bodies),
            };
        }
      },
    },
  );
  return { png: png!, rows: { bound: rows.bound!, image: rows.image! } };
}

describe('an engine capture checked against its final state', () => {
  it('keeps honest captures as sbeval encodes them and refuses swapped or oversized ones', async () => {
    const [a, b] = referenceLevels()
      .filter((l) => l.character === 'L')
      .slice(0, 2);
    const one = await captured(a!.xml);
    const other = await captured(b!.xml);
    const level = parseLevelXml(a!.xml);

    const honest = await checkCapture({ png: one.png }, level, one.rows, 'e');
    expect(honest.ok && Buffer.from(honest.result.png).equals(Buffer.from(one.png))).toBe(true);

    // Unity's layout (8-bit RGBA) with a text chunk: the same pixels, so the same file once kept.
    const rgba = bloated(await encodePng((await decodePng(one.png)).rgba), 1000);
    const unity = await checkCapture({ png: rgba }, level, one.rows, 'e');
    expect(unity.ok && Buffer.from(unity.result.png).equals(Buffer.from(one.png))).toBe(true);

    const swapped = await checkCapture({ png: other.png }, level, one.rows, 'e');
    expect(swapped.ok ? '' : swapped.reason).toMatch(/capture does not show the final state it streamed: [\d.]+ % of the black pixels differ \(at most 5 %\)/);

    const huge = await checkCapture({ png: bloated(one.png, 9 * 1024 * 1024) }, level, one.rows, 'e');
    expect(huge.ok ? '' : huge.reason).toMatch(/sent a capture of \d+ bytes \(at most 8388608\)/);
  }, 60_000);
});
