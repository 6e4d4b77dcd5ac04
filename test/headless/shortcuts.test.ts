import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATION, type SimulationSettings } from '../../bridge/engine.js';
import { FIELD_COUNT } from '../../bridge/frames.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { decodePng } from '../../bridge/headless/png.js';
import { maskToRgba } from '../../bridge/headless/render.js';
import { levelSeed, simulateTrial, type TrialRunOptions } from '../../bridge/headless/run.js';
import { islandSolverInUse, useIslandSolver } from '../../bridge/headless/solver.js';
import { WorkerEngine } from '../../bridge/headless/worker-engine.js';
import { stepsToSimulate } from '../../bridge/window.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { evaluateLevel } from '../../orchestrator/machine/index.js';
import { EnginePool } from '../../orchestrator/pool/index.js';
import { OFFICIAL_RULE } from '../../scoring/stability.js';
import { benchMix, hardCorpusLevels, referenceLevels } from '../../scripts/bench/mix.js';

/**
 * The engine's exact shortcuts change how much work a trial takes, never what it gives: the typed
 * island solver against planck's own, the early end of a resting world against stepping to the end,
 * and the 1-bit PNG against Unity's RGBA layout — compared bit for bit on whole trials.
 */

/**
 * One trial's whole stream (body table, every frame's floats and flags, events) and image, as a digest.
 * Frames are hashed step by step, whatever batches carry them; `batches` counts the batches.
 */
function trialDigest(xml: string, settings: Partial<SimulationSettings>, options: TrialRunOptions, batches = { count: 0 }): string {
  const hash = createHash('sha256');
  let nextStep = 0;
  const images = simulateTrial(
    parseLevelXml(xml),
    levelSeed(xml),
    { ...DEFAULT_SIMULATION, ...settings },
    {
      loaded(bodies, dt) {
        hash.update(JSON.stringify({ bodies, dt }));
      },
      frames(batch) {
        batches.count += 1;
        expect(batch.firstStep).toBe(nextStep);
        nextStep += batch.stepCount;
        const stateBytes = batch.bodyCount * FIELD_COUNT * 4;
        const bytes = new Uint8Array(batch.states.buffer, batch.states.byteOffset, batch.states.byteLength);
        expect(bytes.length).toBe(batch.stepCount * stateBytes);
        for (let s = 0; s < batch.stepCount; s++) {
          hash.update(`${batch.firstStep + s}:${batch.bodyCount}`);
          hash.update(bytes.subarray(s * stateBytes, (s + 1) * stateBytes));
          hash.update(batch.alive.subarray(s * batch.bodyCount, (s + 1) * batch.bodyCount));
        }
      },
      events(events) {
        hash.update(JSON.stringify(events));
      },
    },
    undefined,
    undefined,
    options,
  );
  if (images) {
    hash.update(images.image.scanlines);
    hash.update(JSON.stringify(images.bound));
  }
  return hash.digest('hex');
}

// Levels that exercise the solver: hard corpus levels (towers that tip, a 40-block pile, bridges,
// cantilevers), every fifteenth reference level, and mix levels that collapse and that stand.
const hard = hardCorpusLevels();
const reference = referenceLevels().filter((_, i) => i % 15 === 0);
const mix = benchMix(16, 5);
/** Generous deadline for the comparisons that run planck's own (slower) solver on a loaded machine. */
const SLOW = 300_000;

afterEach(() => useIslandSolver('wasm'));

describe('exact shortcuts', () => {
  it(
    "the typed-array island solver (WebAssembly and JavaScript kernels) gives planck's own solver's bits (trials 1–3, every frame)",
    () => {
      expect(islandSolverInUse()).toBe('wasm');
      // (All runs end resting trials early: that shortcut is compared on its own below.)
      const levels = [hard[0]!, hard[5]!, hard[8]!, ...reference, ...mix.slice(0, 6)];
      const run = () => levels.flatMap((l) => [1, 2, 3].map((trial) => trialDigest(l.xml, { trial, capture: false }, {})));
      const wasm = run();
      useIslandSolver('js');
      const js = run();
      useIslandSolver('planck');
      const planck = run();
      expect(wasm).toEqual(planck);
      expect(js).toEqual(planck);
      // The comparison is not between identical constants: the trials differ among themselves.
      expect(new Set(planck).size).toBeGreaterThan(levels.length);
    },
    SLOW,
  );

  it(
    'ending a resting trial early gives the same frames, events, image and bound as stepping to the end',
    () => {
      let ended = 0;
      for (const level of [hard[1]!, hard[3]!, hard[6]!, ...mix]) {
        const settings = { trial: 1, capture: true };
        const shortBatches = { count: 0 };
        const fullBatches = { count: 0 };
        expect(trialDigest(level.xml, settings, { stopWhenResting: true }, shortBatches)).toBe(
          trialDigest(level.xml, settings, { stopWhenResting: false }, fullBatches),
        );
        // The same 50-step batches either way (test/bridge/hostile/sessions.ts cuts a stream by batch).
        expect(shortBatches.count).toBe(Math.ceil((stepsToSimulate(DEFAULT_SIMULATION) + 1) / DEFAULT_SIMULATION.framesPerBatch));
        expect(fullBatches.count).toBe(shortBatches.count);
        ended += 1;
      }
      expect(ended).toBe(3 + mix.length);
    },
    SLOW,
  );

  it(
    "an engine without shortcuts in a worker thread (planck's solver, every step, RGBA PNG) scores and draws the same",
    async () => {
      const old = new WorkerEngine(undefined, { shortcuts: false });
      const oldPool = new EnginePool({ engines: [old] });
      const fastPool = new EnginePool({ engines: [new HeadlessEngine()] });
      try {
        await old.started();
        const options = { trials: 3, damage: 'contact-point' as const, rule: OFFICIAL_RULE, capture: true, rawImages: true };
        for (const level of [...mix.slice(0, 2), hard[6]!]) {
          const a = await evaluateLevel(oldPool, level.name, level.xml, options);
          const b = await evaluateLevel(fastPool, level.name, level.xml, options);
          expect(b.stability).toEqual(a.stability);
          expect(b.trials).toEqual(a.trials);
          expect(b.events).toEqual(a.events);
          expect([a.png![25], b.png![25]]).toEqual([6, 0]); // RGBA vs 1-bit grey
          expect(Buffer.from((await decodePng(b.png!)).rgba).equals(Buffer.from((await decodePng(a.png!)).rgba))).toBe(true);
          expect(Buffer.from((await decodePng(b.raw!)).rgba).equals(Buffer.from((await decodePng(a.raw!)).rgba))).toBe(true);
        }
      } finally {
        await oldPool.close();
        await fastPool.close();
      }
    },
    SLOW,
  );

  it('the mask renders what the RGBA path rendered: white margin, black structure', () => {
    const level = reference[0]!;
    const images = simulateTrial(parseLevelXml(level.xml), levelSeed(level.xml), { ...DEFAULT_SIMULATION }, { loaded() {}, frames() {}, events() {} });
    const rgba = maskToRgba(images!.image);
    let black = 0;
    for (let i = 0; i < rgba.length; i += 4) if (rgba[i] === 0) black++;
    expect(black).toBeGreaterThan(1000);
    // The 100 px margin stays white.
    for (let x = 0; x < 1024; x++) expect([rgba[x * 4], rgba[(99 * 1024 + x) * 4], rgba[(1023 * 1024 + x) * 4]]).toEqual([255, 255, 255]);
  });
});
