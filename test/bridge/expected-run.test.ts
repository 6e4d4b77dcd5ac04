import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { expectedRun, fallingBody } from '../../bridge/expected-run.js';
import { FIELD_COUNT } from '../../bridge/frames.js';
import { levelSeed, simulateTrial } from '../../bridge/headless/run.js';
import type { Level } from '../../levels/level.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { benchMix, hardCorpusLevels, referenceLevels } from '../../scripts/bench/mix.js';
import { ALOFT_LEVEL } from './hostile/sessions.js';

/**
 * The frozen-frames check (orchestrator/pool/stream-guard.ts) refuses a stream in which nothing moves
 * only when `fallingBody` names a body that must fall. It must never refuse an honest run: a level at
 * rest may stream identical frames at every step (V2_I_1 does, on both engines — the frozen rule that
 * refused it broke CI), so every body it names has to move at step 1 on the headless engine, on every
 * level we have: the 90 reference levels, the hard corpus, the golden samples and the bench mix.
 */
const SAMPLES = fileURLToPath(new URL('../fixtures/golden/sample-levels/', import.meta.url));

function sampleLevels(): Array<{ name: string; xml: string }> {
  return readdirSync(SAMPLES)
    .filter((f) => f.endsWith('.xml'))
    .sort()
    .map((f) => ({ name: `sample/${f}`, xml: readFileSync(join(SAMPLES, f), 'utf8') }));
}

/** Step 0 and step 1 rows of the level on the headless engine (the trial stops after step 1). */
function firstRows(level: Level, xml: string): [Float32Array, Float32Array] {
  const rows: Float32Array[] = [];
  let bodies = 0;
  simulateTrial(
    level,
    levelSeed(xml),
    { ...DEFAULT_SIMULATION, capture: false, framesPerBatch: 1 },
    {
      loaded: (b) => (bodies = b.length),
      frames: (batch) => rows.push(batch.states.slice(0, bodies * FIELD_COUNT)),
      events: () => {},
    },
    () => rows.length >= 2,
  );
  return [rows[0] as Float32Array, rows[1] as Float32Array];
}

const level = (objects: string, width = 2): Level =>
  parseLevelXml(`<?xml version="1.0" encoding="utf-16"?>\n<Level width="${width}">\n  <GameObjects>\n${objects}\n  </GameObjects>\n</Level>\n`);

describe('fallingBody: the bodies gravity must move at step 1', () => {
  it('names only bodies that move at step 1, on every reference, corpus, sample and bench-mix level', () => {
    const levels = [
      ...referenceLevels().map((l) => ({ name: `${l.team}/${l.name}`, xml: l.xml })),
      ...hardCorpusLevels().map((l) => ({ name: `hard/${l.name}`, xml: l.xml })),
      ...sampleLevels(),
      ...benchMix(300).map((l) => ({ name: `mix/${l.name}`, xml: l.xml })),
      { name: 'aloft', xml: ALOFT_LEVEL },
    ];
    let named = 0;
    const wrong: string[] = [];
    for (const { name, xml } of levels) {
      const parsed = parseLevelXml(xml);
      const body = fallingBody(parsed);
      if (body === undefined) continue;
      named += 1;
      const [start, next] = firstRows(parsed, xml);
      const row = start.subarray(body * FIELD_COUNT, (body + 1) * FIELD_COUNT);
      const after = next.subarray(body * FIELD_COUNT, (body + 1) * FIELD_COUNT);
      if (row.every((v, i) => v === after[i])) wrong.push(`${name}: body ${body}`);
    }
    expect(wrong).toEqual([]);
    // The check is not vacuous: the levels with a body in the air are found.
    expect(named).toBeGreaterThan(0);
  });

  it('names none for the levels at rest that stream identical frames (V2_I_1), nor when anything is beneath or beside a body', () => {
    const v2i1 = referenceLevels().find((l) => l.team === 'v2' && l.name === 'V2_I_1');
    expect(v2i1).toBeDefined();
    expect(fallingBody(parseLevelXml(v2i1!.xml))).toBeUndefined();
    // On the ground (top at y = −3.5): no fall.
    expect(fallingBody(level('<Block type="SquareSmall" material="wood" x="1" y="-3.285" rotation="0" />'))).toBeUndefined();
    // In the air, alone: it falls.
    expect(
      fallingBody(
        level(
          '<Block type="SquareSmall" material="wood" x="1" y="-3.285" rotation="0" />\n<Block type="RectSmall" material="stone" x="3" y="-1.39" rotation="0" />',
        ),
      ),
    ).toBe(1);
    // Above another block with a gap: something is beneath it, so it is not named (conservative).
    expect(
      fallingBody(
        level(
          '<Block type="SquareSmall" material="wood" x="1" y="-3.285" rotation="0" />\n<Block type="RectSmall" material="stone" x="1" y="-1.39" rotation="0" />',
        ),
      ),
    ).toBeUndefined();
    // Beside a platform at its height (it could be wedged): not named.
    expect(
      fallingBody(
        level(
          '<Platform type="Platform" x="3.6" y="-1.39" scaleX="1" scaleY="1" rotation="0" />\n<Block type="RectSmall" material="stone" x="3" y="-1.39" rotation="0" />',
        ),
      ),
    ).toBeUndefined();
    // A platform in the air is kinematic: it never falls.
    expect(fallingBody(level('<Platform type="Platform" x="3" y="0" scaleX="1" scaleY="1" rotation="0" />'))).toBeUndefined();
    // Outside the world (it may be removed before it moves): not named.
    expect(fallingBody(level('<Block type="RectSmall" material="stone" x="30" y="0" rotation="0" />', 2))).toBeUndefined();
    // A pig and a TNT in the air fall too.
    expect(fallingBody(level('<Pig type="BasicSmall" x="0" y="1" rotation="0" />'))).toBe(0);
    expect(fallingBody(level('<TNT type="" x="0" y="1" rotation="0" />'))).toBe(0);
  });

  it('is what the stream guard expects of a job, and nothing for XML this side cannot read', () => {
    const settings = { ...DEFAULT_SIMULATION };
    expect(expectedRun({ levelId: 'aloft', xml: ALOFT_LEVEL, settings }).fallingBody).toBe(1);
    expect(expectedRun({ levelId: 'v2i1', xml: referenceLevels().find((l) => l.name === 'V2_I_1')!.xml, settings }).fallingBody).toBeUndefined();
    expect(expectedRun({ levelId: 'junk', xml: '<Level', settings }).fallingBody).toBeUndefined();
  });
});
