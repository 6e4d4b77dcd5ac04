import { describe, expect, it } from 'vitest';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { convertProgram } from '../../levels/pipeline.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { evaluateLevel } from '../../orchestrator/machine/index.js';
import { EnginePool } from '../../orchestrator/pool/index.js';
import { OFFICIAL_RULE } from '../../scoring/stability.js';
import { bandQuotas, benchMix, hardCorpusLevels, hardSet, MIX_BANDS, MIX_LETTERS, referenceLevels } from '../../scripts/bench/mix.js';

describe('the bench mix', () => {
  const mix = benchMix();

  it('500 levels whose block counts follow the real shares: 55 % 1–9, 42 % 10–19, 3 % 20–39', () => {
    expect(mix).toHaveLength(500);
    const counts = MIX_BANDS.map((band) => mix.filter((l) => l.blocks >= band.min && l.blocks <= band.max).length);
    expect(counts).toEqual([275, 210, 15]);
    expect(bandQuotas(132)).toEqual([73, 55, 4]);
    // Every band is spread over its range, not piled on one count.
    for (const band of MIX_BANDS) {
      const inBand = new Set(mix.filter((l) => l.blocks >= band.min && l.blocks <= band.max).map((l) => l.blocks));
      expect(inBand.size).toBeGreaterThanOrEqual(Math.min(8, band.max - band.min + 1));
    }
  });

  it("every level is the official converter's XML of its drop program, with as many blocks as calls", () => {
    for (const level of mix) {
      const converted = convertProgram(level.program);
      expect(converted.ok).toBe(true);
      if (!converted.ok) continue;
      expect(converted.xml).toBe(level.xml);
      expect(parseLevelXml(level.xml).objects).toHaveLength(level.blocks);
      expect(level.program.split('\n')).toHaveLength(level.blocks);
    }
  });

  it('is seeded: the same seed gives the same levels, another seed others; names are unique and every letter appears', () => {
    expect(benchMix(40, 9)).toEqual(benchMix(40, 9));
    expect(benchMix(40, 9).map((l) => l.xml)).not.toEqual(benchMix(40, 10).map((l) => l.xml));
    expect(new Set(mix.map((l) => `${l.character}/${l.name}`)).size).toBe(500);
    expect(new Set(mix.map((l) => l.character))).toEqual(new Set(MIX_LETTERS));
  });

  it('about a quarter collapse (checked on a seed the sloppiness was not fitted on)', async () => {
    const sample = benchMix(100, 77);
    const pool = new EnginePool({ engines: [new HeadlessEngine()] });
    let collapsed = 0;
    for (const level of sample) {
      const result = await evaluateLevel(pool, level.name, level.xml, {
        trials: 3,
        damage: 'contact-point',
        rule: OFFICIAL_RULE,
        capture: false,
        rawImages: false,
      });
      if (result.stability.score < 1) collapsed += 1;
    }
    await pool.close();
    expect(collapsed).toBeGreaterThanOrEqual(15);
    expect(collapsed).toBeLessThanOrEqual(35);
  });

  it('loads the 90 reference levels and the 10 hard corpus levels (8–40 blocks)', () => {
    const reference = referenceLevels();
    expect(reference).toHaveLength(90);
    expect(new Set(reference.map((l) => l.team))).toEqual(new Set(['v1', 'v2', 'v3']));
    const hard = hardCorpusLevels();
    expect(hard.map((l) => l.name)).toEqual(expect.arrayContaining(['hard_01_tower', 'hard_05_pile', 'hard_10_cantilever']));
    const counts = hard.map((l) => parseLevelXml(l.xml).objects.length).sort((a, b) => a - b);
    expect([counts[0], counts.at(-1), counts.length]).toEqual([8, 40, 10]);
  });

  it('makes the hard set: 40 seeded converter levels of 20–60 blocks, spread over that range', () => {
    const hard = hardSet();
    expect(hard).toHaveLength(40);
    expect(hardSet(3, 7).map((l) => l.xml)).toEqual(hard.slice(0, 3).map((l) => l.xml));
    const counts = hard.map((l) => parseLevelXml(l.xml).objects.length);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(20);
    expect(Math.max(...counts)).toBeLessThanOrEqual(60);
    expect(new Set(counts.map((n) => Math.floor(n / 10))).size).toBeGreaterThanOrEqual(4);
    expect(new Set(hard.map((l) => l.name)).size).toBe(40);
  });
});
