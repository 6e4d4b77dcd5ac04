import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { perturbationFor, summarizeRobustness } from '../../scoring/robustness.js';
import { runSbeval } from '../helpers/cli.js';
import { knifeEdgeLevels } from './helpers/knife-edge.js';

/**
 * Knife-edge verdicts: a bar resting on a small square with its centre over the square's edge, placed (by
 * bisection on the unperturbed engine) exactly where its verdict flips, is flagged fragile by
 * `simulate --robustness 20`; the same bar centred on the square is not. The official verdict and the
 * stability file are those of a plain `simulate`.
 */
const tmp = mkdtempSync(join(tmpdir(), 'sbeval-robustness-'));
const root = join(tmp, 'competition');
const plain = join(tmp, 'plain');

beforeAll(() => {
  const dir = join(root, 'team', 'levels', 'I');
  mkdirSync(dir, { recursive: true });
  const { knife, solid } = knifeEdgeLevels();
  writeFileSync(join(dir, 'team_I_1.xml'), knife);
  writeFileSync(join(dir, 'team_I_2.xml'), solid);
  cpSync(root, plain, { recursive: true });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('simulate --robustness', () => {
  it('flags the knife-edge level and not the solid one; the official verdicts and files are unchanged', async () => {
    const res = await runSbeval(['simulate', root, '--robustness', '20', '--workers', '1', '--json']);
    expect(res.exitCode, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as {
      robustness: {
        runs: number;
        levels: number;
        computed: number;
        fragile: Array<{ level: string; runs: number; stableRuns: number; officialStable: boolean; fragile: boolean }>;
      };
    };
    expect(out.robustness).toMatchObject({ runs: 20, levels: 2, computed: 2 });
    expect(out.robustness.fragile.map((f) => f.level)).toEqual(['team_I_1']);
    const knife = out.robustness.fragile[0]!;
    expect(knife.officialStable).toBe(true);
    expect(knife.stableRuns).toBeLessThan(18); // fewer than 90% of 20 agree with "stable"

    // simulate writes nothing under result/ (the one results writer does): score --robustness lists the cached runs.
    expect(existsSync(join(root, 'result'))).toBe(false);
    await runSbeval(['score', root, '--robustness', '20', '--rules', '2023']);
    const csv = readFileSync(join(root, 'result', 'robustness.csv'), 'utf8')
      .trimEnd()
      .split('\n');
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
