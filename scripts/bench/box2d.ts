import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { groundTiles, planObjects } from '../../bridge/headless/objects.js';
import { levelSeed, simulateTrial } from '../../bridge/headless/run.js';
import { WORLD_SETTINGS } from '../../bridge/headless/settings.js';
import { DEFAULT_MATERIAL } from '../../levels/catalog.js';
import type { Level } from '../../levels/level.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { OFFICIAL_RULE, StabilityTracker } from '../../scoring/stability.js';
import { envInteger } from './env.js';
import { benchMix, hardSet, referenceLevels } from './mix.js';
import type { BenchSuite } from './suite.js';

/**
 * How fast can the evaluator's physics go at all? The same worlds stepped by an independent, compiled
 * implementation: Box2D 2.4.1 built to WebAssembly with SIMD (`box2d-wasm` 7.0.0, a devDependency used
 * only here), against sbeval's engine (planck.js + the WebAssembly velocity kernel), in this thread,
 * on the bench mix (500 generated + 90 reference levels) and the hard set (20–60 blocks), alternating rounds.
 *
 * Both run trial 1 as the evaluator configures it (gravity, 50 Hz, 100 velocity and 100 position
 * iterations, sleeping, warm starting, no continuous physics, the prefab masses, frictions, dampings
 * and gravity scales, the ground tiles; Box2D's tuning constants are the defaults Unity keeps,
 * bridge/headless/settings.ts) and stop once every body sleeps. sbeval's side is its whole trial
 * (frames, events, damage, out-of-world) without the image; Box2D's side is the stepping alone plus
 * one state read per body and step, without the evaluator's damage — so the ratio is an upper bound of
 * what a Box2D backend could gain. The verdict columns only show that both simulate the same worlds
 * (trial 1 stable or not; Box2D in float32 and without damage is not the evaluator).
 */
type Box2dModule = any; // box2d-wasm's typings need @types/emscripten; the few calls used are plain.

const require = createRequire(import.meta.url);

async function loadBox2d(): Promise<{ b2: Box2dModule; build: string }> {
  const simd = WebAssembly.validate(
    new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]),
  );
  const dir = join(dirname(require.resolve('box2d-wasm/package.json')), 'dist', 'umd');
  const build = simd ? 'Box2D.simd' : 'Box2D';
  // The factory would fetch() the .wasm by path under Node 20; handing it the bytes avoids that.
  const factory = require(join(dir, `${build}.js`)) as (options: { wasmBinary: Uint8Array }) => Promise<Box2dModule>;
  return { b2: await factory({ wasmBinary: readFileSync(join(dir, `${build}.wasm`)) }), build: simd ? 'SIMD' : 'scalar' };
}

const STEPS = DEFAULT_SIMULATION.windowSteps + 15;

/** One trial in Box2D: moved counted blocks (centre ≥ 0.1 from the start when the world sleeps or the window ends). */
function box2dTrial(b2: Box2dModule, level: Level): { moving: number; counted: number } {
  const world = new b2.b2World(new b2.b2Vec2(WORLD_SETTINGS.gravity.x, WORLD_SETTINGS.gravity.y));
  world.SetAllowSleeping(WORLD_SETTINGS.allowSleep);
  world.SetWarmStarting(WORLD_SETTINGS.warmStarting);
  world.SetContinuousPhysics(WORLD_SETTINGS.continuousPhysics);
  world.SetSubStepping(WORLD_SETTINGS.subStepping);
  const ground = world.CreateBody(new b2.b2BodyDef());
  for (const tile of groundTiles(level.width)) {
    const shape = new b2.b2PolygonShape();
    shape.SetAsBox(tile.halfWidth, tile.halfHeight, new b2.b2Vec2(tile.x, tile.y), 0);
    const fixture = new b2.b2FixtureDef();
    fixture.set_shape(shape);
    fixture.set_density(0);
    fixture.set_friction(DEFAULT_MATERIAL.friction);
    fixture.set_restitution(DEFAULT_MATERIAL.bounciness);
    ground.CreateFixture(fixture);
  }
  const plans = planObjects(level);
  const bodies = plans.map((plan) => {
    const def = new b2.b2BodyDef();
    def.set_type(plan.body.bodyType === 'dynamic' ? b2.b2_dynamicBody : b2.b2_staticBody);
    def.set_position(new b2.b2Vec2(plan.x, plan.y));
    def.set_angle(plan.angle);
    def.set_linearDamping(plan.body.linearDamping);
    def.set_angularDamping(plan.body.angularDamping);
    def.set_gravityScale(plan.body.gravityScale);
    const body = world.CreateBody(def);
    for (const piece of plan.pieces) {
      const points = b2._malloc(piece.length * 8);
      piece.forEach(([x, y], i) => {
        b2.HEAPF32[(points >> 2) + i * 2] = x;
        b2.HEAPF32[(points >> 2) + i * 2 + 1] = y;
      });
      const shape = new b2.b2PolygonShape();
      shape.Set(points, piece.length);
      b2._free(points);
      const fixture = new b2.b2FixtureDef();
      fixture.set_shape(shape);
      fixture.set_density(WORLD_SETTINGS.density);
      fixture.set_friction(plan.friction);
      fixture.set_restitution(plan.restitution);
      body.CreateFixture(fixture);
    }
    if (plan.body.bodyType === 'dynamic') {
      const mass = new b2.b2MassData();
      mass.set_mass(plan.mass.mass);
      mass.set_center(new b2.b2Vec2(plan.mass.cx, plan.mass.cy));
      // Box2D takes the rotational inertia about the body origin.
      mass.set_I(plan.mass.inertia + plan.mass.mass * (plan.mass.cx * plan.mass.cx + plan.mass.cy * plan.mass.cy));
      body.SetMassData(mass);
    }
    return body;
  });
  const start = bodies.map((body) => [body.GetPosition().get_x(), body.GetPosition().get_y()] as const);
  const state = new Float32Array(bodies.length * 6);
  for (let step = 1; step <= STEPS; step++) {
    world.Step(WORLD_SETTINGS.dt, WORLD_SETTINGS.velocityIterations, WORLD_SETTINGS.positionIterations);
    let awake = false;
    bodies.forEach((body, i) => {
      // What a frame stream would read of every body each step.
      const p = body.GetPosition();
      const v = body.GetLinearVelocity();
      state.set([p.get_x(), p.get_y(), body.GetAngle(), v.get_x(), v.get_y(), body.GetAngularVelocity()], i * 6);
      if (plans[i]!.body.bodyType === 'dynamic' && body.IsAwake()) awake = true;
    });
    if (!awake) break;
  }
  let moving = 0;
  let counted = 0;
  bodies.forEach((body, i) => {
    if (!plans[i]!.counted) return;
    counted++;
    const p = body.GetPosition();
    if (Math.hypot(p.get_x() - start[i]![0], p.get_y() - start[i]![1]) >= 0.1) moving++;
  });
  b2.destroy(world);
  return { moving, counted };
}

function sbevalTrial(level: Level, seed: number): { moving: number; counted: number } {
  let tracker: StabilityTracker | undefined;
  simulateTrial(
    level,
    seed,
    { ...DEFAULT_SIMULATION, trial: 1, capture: false },
    {
      loaded: (bodies) => (tracker = new StabilityTracker(bodies, DEFAULT_SIMULATION.windowSteps, OFFICIAL_RULE)),
      frames: (batch) => tracker?.frames(batch),
      events: (events) => tracker?.events(events),
    },
  );
  const result = (tracker as StabilityTracker).result();
  return { moving: result.movingObjects, counted: result.startingObjects };
}

export const box2dSuite: BenchSuite = {
  name: 'box2d',
  description:
    "the evaluator physics in compiled Box2D 2.4.1 (box2d-wasm, SIMD WebAssembly) vs sbeval's engine: trial 1 without image on the bench mix, in this thread, alternating rounds (SBEVAL_BENCH_ROUNDS, default 3)",
  async run() {
    const { b2, build } = await loadBox2d();
    const parse = (xml: string) => ({ level: parseLevelXml(xml), seed: levelSeed(xml) });
    const sets = [
      { name: 'mix', levels: [...benchMix(), ...referenceLevels()].map((l) => parse(l.xml)) },
      { name: 'hard set', levels: hardSet().map((l) => parse(l.xml)) },
    ];
    // Warm both (JIT, WebAssembly tier-up) before the clock.
    for (const l of (sets[0] as (typeof sets)[number]).levels.slice(0, 60)) {
      box2dTrial(b2, l.level);
      sbevalTrial(l.level, l.seed);
    }
    const rounds = envInteger('SBEVAL_BENCH_ROUNDS', 3, 1, 100);
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;
    const round2 = (v: number) => Math.round(v * 100) / 100;
    const rows: Array<Record<string, string | number>> = [];
    for (const { name, levels } of sets) {
      const box2dMs: number[] = [];
      const sbevalMs: number[] = [];
      let verdicts = { box2dStable: 0, sbevalStable: 0, agree: 0 };
      for (let round = 0; round < rounds; round++) {
        let started = performance.now();
        const b = levels.map((l) => box2dTrial(b2, l.level));
        box2dMs.push((performance.now() - started) / levels.length);
        started = performance.now();
        const s = levels.map((l) => sbevalTrial(l.level, l.seed));
        sbevalMs.push((performance.now() - started) / levels.length);
        if (round === 0) {
          verdicts = {
            box2dStable: b.filter((r) => r.moving === 0).length,
            sbevalStable: s.filter((r) => r.moving === 0).length,
            agree: b.filter((r, i) => (r.moving === 0) === (s[i]!.moving === 0)).length,
          };
        }
      }
      const ratio = round2(median(sbevalMs) / median(box2dMs));
      rows.push(
        {
          set: name,
          engine: `box2d-wasm 7.0.0 (Box2D 2.4.1, ${build}, float32, no damage)`,
          levels: levels.length,
          msPerTrial: round2(median(box2dMs)),
          rounds: box2dMs.map(round2).join(' / '),
          stableInTrial1: verdicts.box2dStable,
        },
        {
          set: name,
          engine: 'sbeval headless (planck.js + WebAssembly kernel, whole trial without image)',
          levels: levels.length,
          msPerTrial: round2(median(sbevalMs)),
          rounds: sbevalMs.map(round2).join(' / '),
          stableInTrial1: verdicts.sbevalStable,
        },
        {
          set: name,
          engine: 'ratio (median rounds)',
          levels: levels.length,
          msPerTrial: ratio,
          rounds: `sbeval time ÷ Box2D time per trial`,
          stableInTrial1: `same verdict on ${verdicts.agree}/${levels.length}`,
        },
      );
    }
    return rows;
  },
};
