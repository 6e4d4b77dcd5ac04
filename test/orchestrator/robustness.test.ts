import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { levelSeed, simulateTrial } from '../../bridge/headless/run.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { levelToXml } from '../../levels/xml-write.js';
import type { LevelObject } from '../../levels/level.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { StabilityTracker } from '../../scoring/stability.js';
import { perturbationFor, summarizeRobustness } from '../../scoring/robustness.js';
import { runSbeval } from '../helpers/cli.js';

/**
 * Knife-edge verdicts: a bar resting on a small square with its centre over the square's edge, placed (by
 * bisection on the unperturbed engine) exactly where its verdict flips, is flagged fragile by
 * `simulate --robustness 20`; the same bar centred on the square is not. The official verdict and the
 * stability file are those of a plain `simulate`.
 */
const GROUND = -3.5;

function barLevel(barX: number): string {
  const objects: LevelObject[] = [
    { kind: 'block', type: 'SquareSmall', material: 'wood', x: 3, y: GROUND + 0.215 + 0.005, rotation: 0 },
    { kind: 'block', type: 'RectSmall', material: 'wood', x: barX, y: GROUND + 0.43 + 0.11 + 0.02, rotation: 0 },
  ];
  return levelToXml({ width: 3, camera: undefined, birds: ['BirdRed'], slingshot: { x: -9, y: -2.5 }, objects });
}

function movingObjects(xml: string): number {
  let tracker: StabilityTracker | undefined;
  simulateTrial(parseLevelXml(xml), levelSeed(xml), { ...DEFAULT_SIMULATION, capture: false }, {
    loaded: (bodies) => (tracker = new StabilityTracker(bodies)),
    frames: (batch) => tracker!.frames(batch),
    events: (events) => tracker!.events(events),
  });
  return tracker!.result().movingObjects;
}

/** The bar position where the unperturbed verdict flips (stable to its left), to ~1e-9 units. */
function knifeEdge(): number {
  let stable = 3; // centred on the square
  let falls = 3 + 0.215 + 0.1; // its centre 0.1 past the square's right edge
  expect(movingObjects(barLevel(stable))).toBe(0);
  expect(movingObjects(barLevel(falls))).toBeGreaterThan(0);
  while (falls - stable > 1e-9) {
    const mid = (stable + falls) / 2;
    if (movingObjects(barLevel(mid)) === 0) stable = mid;
    else falls = mid;
  }
  return stable;
}

const tmp = mkdtempSync(join(tmpdir(), 'sbeval-robustness-'));
const root = join(tmp, 'competition');
const plain = join(tmp, 'plain');

beforeAll(() => {
  const dir = join(root, 'team', 'levels', 'I');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'team_I_1.xml'), barLevel(knifeEdge()));
  writeFileSync(join(dir, 'team_I_2.xml'), barLevel(3));
  cpSync(root, plain, { recursive: true });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('simulate --robustness', () => {
  it('flags the knife-edge level and not the solid one; the official verdicts and files are unchanged', async () => {
    const res = await runSbeval(['simulate', root, '--robustness', '20', '--workers', '1', '--json']);
    expect(res.exitCode, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as { robustness: { runs: number; levels: number; computed: number; fragile: Array<{ level: string; runs: number; stableRuns: number; officialStable: boolean; fragile: boolean }> } };
    expect(out.robustness).toMatchObject({ runs: 20, levels: 2, computed: 2 });
    expect(out.robustness.fragile.map((f) => f.level)).toEqual(['team_I_1']);
    const knife = out.robustness.fragile[0]!;
    expect(knife.officialStable).toBe(true);
    expect(knife.stableRuns).toBeLessThan(18); // fewer than 90% of 20 agree with "stable"

    const csv = readFileSync(join(root, 'result', 'robustness.csv'), 'utf8').trimEnd().split('\n');
    expect(csv[0]).toBe('team,letter,level,official_score,runs,stable_runs,moving_min,moving_max,moving_mean,fragile');
    expect(csv[1]).toMatch(/^team,I,team_I_1,1,20,\d+,0,1,[\d.]+,yes$/);
    expect(csv[2]).toBe('team,I,team_I_2,1,20,20,0,0,0.00,no');

    // The stability file is the one a plain simulate writes.
    await runSimulateStage({ root: plain, workers: 1 });
    expect(readFileSync(join(root, 'team', 'stability', 'I.json'), 'utf8')).toBe(readFileSync(join(plain, 'team', 'stability', 'I.json'), 'utf8'));

    // Again: both levels come from the cache, same list.
    const again = await runSbeval(['simulate', root, '--robustness', '20', '--workers', '1', '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    const second = JSON.parse(again.stdout) as typeof out;
    expect(second.robustness).toMatchObject({ computed: 0, levels: 2 });
    expect(second.robustness.fragile).toEqual(out.robustness.fragile);
  }, 300_000);

  it('refuses an engine that cannot perturb a run, before simulating anything', async () => {
    const res = await runSbeval(['simulate', plain, '--robustness', '5', '--engine', 'unity']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/--robustness needs the headless engine/);
  }, 120_000);
});

describe('robustness summary', () => {
  it('fragile = fewer than 90% of the runs agree with the official verdict, either way', () => {
    expect(summarizeRobustness([0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 1)).toMatchObject({ stableRuns: 9, agreement: 0.9, fragile: false, moving: { min: 0, max: 1 } });
    expect(summarizeRobustness([0, 0, 0, 0, 0, 0, 0, 0, 1, 2], 1)).toMatchObject({ agreement: 0.8, fragile: true, moving: { min: 0, max: 2, mean: 0.3 } });
    // Officially moving (score < 1): runs in which it stands disagree.
    expect(summarizeRobustness([3, 3, 4, 3, 3, 3, 3, 3, 3, 3], 0.5)).toMatchObject({ officialStable: false, agreement: 1, fragile: false });
    expect(summarizeRobustness([3, 0, 0, 3, 3, 3, 3, 3, 3, 3], 0.5)).toMatchObject({ officialStable: false, stableShare: 0.2, fragile: true });
  });

  it('perturbations are seeded by the level and the run: the same twice, different across runs', () => {
    expect(perturbationFor(42, 3)).toEqual(perturbationFor(42, 3));
    expect(perturbationFor(42, 3).seed).not.toBe(perturbationFor(42, 4).seed);
    expect(perturbationFor(42, 3).seed).not.toBe(perturbationFor(43, 3).seed);
    expect(perturbationFor(42, 0)).toMatchObject({ shuffleOrder: true, positionNoise: 1e-4, warmStarting: true });
    expect(perturbationFor(42, 1).warmStarting).toBe(false);
  });
});
