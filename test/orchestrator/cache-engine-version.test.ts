import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { headlessDigest } from '../../bridge/headless/engine.js';
import { digestFor, engineKey, settingsDigest } from '../../orchestrator/stages/level-cache.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { OFFICIAL_RULE } from '../../scoring/stability.js';
import { referenceLevels } from '../../scripts/bench/mix.js';

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
