import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATION, type EngineIdentity } from '../../bridge/engine.js';
import { HeadlessEngine, headlessDigest, headlessIdentity } from '../../bridge/headless/engine.js';
import { headlessCapabilities, runEngineWorker } from '../../bridge/worker.js';
import { SILENT_PROGRESS } from '../../orchestrator/progress/types.js';
import { type CachedLevel, digestFor, engineKey, settingsDigest } from '../../orchestrator/stages/level-cache.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { OFFICIAL_RULE } from '../../scoring/stability.js';
import { referenceLevels } from '../../scripts/bench/mix.js';
import { portFromHint, sbeval } from '../helpers/bridge-run.js';
import { exampleCopy } from './helpers/competition.js';

/**
 * A level's cache is keyed by the version of the engine that made it, for `headless-ws` as for
 * `headless`: the `sbeval engine` processes run this installation's headless engine, so results an
 * engine of another version cached (or one keyed by the kind's name alone) are simulated again, through
 * real `sbeval engine` processes over loopback, while the engine's own results are found again.
 */
const LEVELS = 3;
const SETTINGS = { trials: 1, damage: DEFAULT_SIMULATION.damage, rule: OFFICIAL_RULE };

function rootWithLevels(): string {
  const root = mkdtempSync(join(tmpdir(), 'sbeval-cache-version-'));
  mkdirSync(join(root, 'team', 'levels', 'L'), { recursive: true });
  referenceLevels()
    .filter((l) => l.team === 'v1' && l.character === 'L')
    .slice(0, LEVELS)
    .forEach((l, i) => writeFileSync(join(root, 'team', 'levels', 'L', `team_L_${i + 1}.xml`), l.xml));
  return root;
}

/** Rewrites every level cache of the root as if an engine keyed `digest` had made it. */
function rekey(root: string, digest: string): void {
  const folder = join(root, '.sbeval', 'simulate', 'team', 'L');
  const files = readdirSync(folder).filter((f) => f.endsWith('.json'));
  expect(files).toHaveLength(LEVELS);
  for (const file of files) {
    const entry = JSON.parse(readFileSync(join(folder, file), 'utf8')) as { settings: string };
    entry.settings = digest;
    writeFileSync(join(folder, file), `${JSON.stringify(entry)}\n`);
  }
}

describe('the simulation cache carries the engine version', () => {
  it('keys headless and headless-ws by the headless engine digest, and by nothing else for engines sbeval does not start', () => {
    expect(engineKey('headless-ws')).toBe(`headless-ws:${headlessDigest()}`);
    expect(engineKey('headless')).toBe(`headless:${headlessDigest()}`);
    expect(settingsDigest({ engine: 'headless-ws', ...SETTINGS })).not.toBe(digestFor(engineKey('headless-ws', '0000000000000000'), SETTINGS));
    expect(settingsDigest({ engine: 'headless-ws', ...SETTINGS })).not.toBe(digestFor('headless-ws', SETTINGS));
  });

  it('headless-ws simulates again what another engine version cached, and finds its own results', async () => {
    const root = rootWithLevels();
    const first = await runSimulateStage({ root, engine: 'headless-ws', workers: 1, trials: 1 });
    expect(first.succeeded).toBe(LEVELS);

    const again = await runSimulateStage({ root, engine: 'headless-ws', workers: 1, trials: 1 });
    expect(again.skipped).toBe(LEVELS);
    expect(again.succeeded).toBe(0);

    // An older engine's results: its digest differs; a key without the version: the kind's name alone.
    for (const digest of [digestFor(engineKey('headless-ws', '0000000000000000'), SETTINGS), digestFor('headless-ws', SETTINGS)]) {
      rekey(root, digest);
      const upgraded = await runSimulateStage({ root, engine: 'headless-ws', workers: 1, trials: 1 });
      expect(upgraded.skipped).toBe(0);
      expect(upgraded.succeeded).toBe(LEVELS);
    }
  }, 240_000);
});

/** The headless engine announcing itself as another build: what an upgraded engine that dials in looks like to the run. */
class AnnouncedEngine extends HeadlessEngine {
  override readonly identity: EngineIdentity;
  constructor(build: string) {
    super();
    this.identity = { ...headlessIdentity(''), kind: 'unity', version: '2019.4.40f1', build };
  }
}

/** `sbeval run --engine bridge` on `root` with one engine of `build` dialled in; the run's output. */
async function bridgeRun(root: string, build: string): Promise<string> {
  const token = randomBytes(32).toString('hex');
  const run = sbeval(['run', root, '--engine', 'bridge'], { SBEVAL_TOKEN: token });
  const port = await portFromHint(run);
  const engine = runEngineWorker({ url: `ws://127.0.0.1:${port}`, token, engine: new AnnouncedEngine(build), capabilities: headlessCapabilities() });
  const result = await run;
  await engine;
  expect(result.exitCode, result.all).toBe(0);
  return String(result.all);
}

function simulatedNow(output: string): number {
  const match = /(\d+) simulated now/.exec(output);
  expect(match, output).not.toBeNull();
  return Number(match?.[1]);
}

function recordedEngines(root: string): string[] {
  const folder = join(root, '.sbeval', 'simulate', 'BlockSmith', 'I');
  return [...new Set(readdirSync(folder).flatMap((f) => (JSON.parse(readFileSync(join(folder, f), 'utf8')) as CachedLevel).engines ?? []))];
}

describe('the simulation cache carries the identity of an engine that dials in', () => {
  it('a bridge run reuses the results of the same engine build and simulates again those of another', async () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I'], config: 'trials: 2\n' });
    const first = await bridgeRun(root, 'plugin-A');
    const levels = readdirSync(join(root, 'BlockSmith', 'levels', 'I')).length;
    expect(levels).toBeGreaterThan(0);
    expect(simulatedNow(first)).toBe(levels);
    expect(recordedEngines(root)).toEqual(['unity 2019.4.40f1 (build plugin-A)']);

    const same = await bridgeRun(root, 'plugin-A');
    expect(simulatedNow(same)).toBe(0);
    expect(same).not.toContain('came from another engine');

    const upgraded = await bridgeRun(root, 'plugin-B');
    expect(simulatedNow(upgraded)).toBe(levels);
    // Said once for the run, with whose results they were and the engine now, not once per level.
    const said = upgraded.split('\n').filter((line) => line.includes('came from another engine'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`${levels} by unity 2019.4.40f1 (build plugin-A)`);
    expect(said[0]).toContain('the engine now is unity 2019.4.40f1 (build plugin-B)');
    expect(recordedEngines(root)).toEqual(['unity 2019.4.40f1 (build plugin-B)']);

    const back = await bridgeRun(root, 'plugin-A');
    expect(simulatedNow(back)).toBe(levels);
    expect(simulatedNow(await bridgeRun(root, 'plugin-A'))).toBe(0);
  }, 600_000);

  it('sbeval simulate with engines known by their hello reuses its own results only', async () => {
    const root = rootWithLevels();
    const simulate = (build: string) => runSimulateStage({ root, engine: 'unity', engines: [new AnnouncedEngine(build)], trials: 1 });
    expect((await simulate('plugin-A')).succeeded).toBe(LEVELS);
    expect(await simulate('plugin-A')).toMatchObject({ skipped: LEVELS, succeeded: 0 });
    const notes: string[] = [];
    const upgraded = await runSimulateStage(
      { root, engine: 'unity', engines: [new AnnouncedEngine('plugin-B')], trials: 1 },
      { ...SILENT_PROGRESS, note: (_stage: string, line: string) => notes.push(line) },
    );
    expect(upgraded).toMatchObject({ skipped: 0, succeeded: LEVELS });
    expect(notes.filter((n) => n.includes('came from another engine'))).toEqual([
      `${LEVELS} cached level result(s) came from another engine (${LEVELS} by unity 2019.4.40f1 (build plugin-A)); the engine now is unity 2019.4.40f1 (build plugin-B): they are simulated again`,
    ]);
  }, 120_000);

  it('a bridge run stopped before any engine dialled in reuses nothing it could not check', async () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I'], config: 'trials: 2\n' });
    await bridgeRun(root, 'plugin-A');
    const levels = readdirSync(join(root, 'BlockSmith', 'levels', 'I')).length;
    const run = sbeval(['run', root, '--engine', 'bridge'], { SBEVAL_TOKEN: randomBytes(32).toString('hex') });
    await portFromHint(run);
    run.kill('SIGINT');
    const output = String((await run).all);
    expect(output).toMatch(/cancelled/);
    expect(output).toMatch(new RegExp(`0 already done by an earlier run, \\d+ failed[^,]*, ${levels} not run: interrupted before they started`));
    expect(recordedEngines(root)).toEqual(['unity 2019.4.40f1 (build plugin-A)']);
  }, 300_000);
});
