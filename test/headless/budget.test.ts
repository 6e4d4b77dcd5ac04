import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATION, type LevelJob } from '../../bridge/engine.js';
import { FIELD_COUNT } from '../../bridge/frames.js';
import { BUDGET_REASONS, SIMULATION_BUDGET, type SimulationBudget, SimulationBudgetError } from '../../bridge/headless/budget.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { mulberry32 } from '../../bridge/headless/order.js';
import { WorkerEngine } from '../../bridge/headless/worker-engine.js';
import { LevelWorld } from '../../bridge/headless/world.js';
import { programToXml } from '../../levels/pipeline.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { EnginePool, type PoolEvent, PoolJobError } from '../../orchestrator/pool/index.js';
import { Collected } from '../bridge/collect.js';
import { PROJECT_ROOT, runSbeval } from '../helpers/cli.js';
import { pathologicalXml } from './pathological-levels.js';

/**
 * The simulation budget (bridge/headless/budget.ts): pathological levels fail as levels with their
 * own reason, deterministically, before the expensive work; the engine stays in service; ordinary
 * levels (data the limits were not fitted on) stay far below it; and steps in which nothing is awake
 * cost nothing, so a "stop when everything sleeps" shortcut cannot change a verdict.
 */
const HARD = join(PROJECT_ROOT, 'test/fixtures/corpus/hard-levels');
const hard = (name: string) => readFileSync(join(HARD, name), 'utf8');
const job = (levelId: string, xml: string, capture = false): LevelJob => ({ levelId, xml, settings: { ...DEFAULT_SIMULATION, capture } });

async function budgetFailure(engine: HeadlessEngine, xml: string): Promise<SimulationBudgetError> {
  const error = await engine.run(job('x', xml), new Collected().sink).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SimulationBudgetError);
  return error as SimulationBudgetError;
}

/** The cost of every step of a trial, as the engine charges it. */
function stepCosts(xml: string, trial = 1, steps = 514): { costs: number[]; states: Float32Array[] } {
  const world = new LevelWorld(parseLevelXml(xml), { trial, damage: 'contact-point', seed: 1 });
  const costs: number[] = [];
  const states: Float32Array[] = [];
  const alive = new Uint8Array(world.bodies.length);
  for (let step = 1; step <= steps; step += 1) {
    costs.push(world.workload());
    world.advance();
    const row = new Float32Array(world.bodies.length * FIELD_COUNT);
    world.writeFrame(row, 0, alive, 0);
    states.push(row);
  }
  return { costs, states };
}

describe('simulation budget', () => {
  it('stops 500 blocks on one spot and 1,000 pigs before their first step, with the per-step reason', async () => {
    const engine = new HeadlessEngine();
    for (const xml of [pathologicalXml('spot'), pathologicalXml('pigs')]) {
      const error = await budgetFailure(engine, xml);
      expect(error.message).toBe(BUDGET_REASONS.step(SIMULATION_BUDGET));
      expect(error.message).toBe(`Simulation budget exceeded: more than ${SIMULATION_BUDGET.maxStepCost} bodies and contacts to update in one step.`);
      expect([error.limit, error.step, error.levelError, error.phase]).toEqual(['step', 1, true, 'simulate']);
      // Every pair of the pile overlaps: n bodies + n(n−1)/2 contacts.
      const n = xml.split('<Block').length - 1 || xml.split('<Pig').length - 1;
      expect(error.cost).toBe(n + (n * (n - 1)) / 2);
    }
    // The engine is still in service.
    const ok = new Collected();
    await engine.run(job('after', hard('hard_01_tower.xml'), true), ok.sink);
    expect(ok.captures).toHaveLength(1);
  });

  it('charges each trial exactly the sum of its step costs: the same verdict and step every time', async () => {
    const xml = hard('hard_01_tower.xml');
    const { costs } = stepCosts(xml, 1, 514);
    const total = costs.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(500);
    const fits: SimulationBudget = { maxStepCost: Math.max(...costs), maxTrialCost: total };
    await new HeadlessEngine(undefined, { budget: fits }).run(job('fits', xml, true), new Collected().sink);

    const tight: SimulationBudget = { maxStepCost: Math.max(...costs), maxTrialCost: total - 1 };
    const lastCostly = costs.findLastIndex((c) => c > 0) + 1;
    const first = await budgetFailure(new HeadlessEngine(undefined, { budget: tight }), xml);
    const again = await budgetFailure(new HeadlessEngine(undefined, { budget: tight }), xml);
    expect(first.message).toBe(`Simulation budget exceeded: more than ${total - 1} body and contact updates in one trial.`);
    expect([first.limit, first.step, first.cost]).toEqual(['trial', lastCostly, total]);
    expect([again.step, again.cost]).toEqual([first.step, first.cost]);

    const stepLimit: SimulationBudget = { maxStepCost: Math.max(...costs) - 1, maxTrialCost: total };
    const byStep = await budgetFailure(new HeadlessEngine(undefined, { budget: stepLimit }), xml);
    expect([byStep.limit, byStep.step]).toEqual(['step', costs.indexOf(Math.max(...costs)) + 1]);
  });

  it('steps in which nothing is awake cost 0 and change nothing, so skipping them cannot change a verdict', () => {
    for (const name of ['hard_01_tower.xml', 'hard_05_pile.xml']) {
      const { costs, states } = stepCosts(hard(name));
      const asleep = costs.indexOf(0);
      expect(asleep, `${name} comes to rest`).toBeGreaterThan(0);
      for (let s = asleep; s < costs.length; s += 1) {
        expect(costs[s], `${name} step ${s + 1}`).toBe(0);
        expect(Buffer.from(states[s]!.buffer).equals(Buffer.from(states[asleep - 1]!.buffer)), `${name} state after step ${s + 1}`).toBe(true);
      }
    }
  });

  it('leaves ordinary levels far below the limits (corpus and random drop programs it was not fitted on)', () => {
    const levels = readdirSync(HARD)
      .filter((f) => f.endsWith('.xml'))
      .map((f) => hard(f));
    const random = mulberry32(20_241);
    const types = ['b11', 'b13', 'b31'];
    while (levels.length < 15) {
      const calls = Array.from(
        { length: 15 + Math.floor(random() * 30) },
        () => `drop_block('${types[Math.floor(random() * 3)]}', ${1 + Math.floor(random() * 18)})`,
      );
      try {
        levels.push(programToXml(calls.join('\n')));
      } catch {
        // Out of the grid: the official converter refuses it; draw another program.
      }
    }
    for (const xml of levels) {
      const { costs } = stepCosts(xml, 1, 514);
      expect(Math.max(...costs)).toBeLessThan(SIMULATION_BUDGET.maxStepCost / 10);
      expect(costs.reduce((a, b) => a + b, 0)).toBeLessThan(SIMULATION_BUDGET.maxTrialCost / 20);
    }
  });

  it('fails the level, not the engine, through a worker thread and the engine pool', async () => {
    const events: PoolEvent[] = [];
    const pool = new EnginePool({ engines: [new WorkerEngine()], onEvent: (e) => events.push(e) });
    try {
      const error = await pool.run({ job: job('pile', pathologicalXml('spot')), sink: new Collected().sink }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PoolJobError);
      expect((error as PoolJobError).kind).toBe('level');
      expect((error as Error).message).toBe(BUDGET_REASONS.step(SIMULATION_BUDGET));
      const next = new Collected();
      await pool.run({ job: job('next', hard('hard_01_tower.xml'), true), sink: next.sink });
      expect(next.captures).toHaveLength(1);
      expect(pool.size).toBe(1);
      expect(events.filter((e) => e.type === 'engine-retired')).toEqual([]);
    } finally {
      await pool.close();
    }
  });

  it('sbeval level reports a level over budget with its reason and exit code 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sbeval-budget-'));
    const file = join(dir, 'pile.xml');
    writeFileSync(file, pathologicalXml('spot'));
    const result = await runSbeval(['level', file, '--json']);
    expect(result.exitCode).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ failed: BUDGET_REASONS.step(SIMULATION_BUDGET), step: 1, cost: 125_250 });
  });
});
