import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { type ProgressSink, SILENT_PROGRESS } from '../../orchestrator/progress/types.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { referenceLevels } from '../../scripts/bench/mix.js';
import { snapshot } from './helpers/competition.js';
import { descendants } from './helpers/processes.js';

/**
 * In `sbeval simulate` (not only `run`): the engines the stage starts itself are
 * replaced when the pool retires one. One `headless-ws` engine process is SIGKILLed after each of the
 * first four finished levels: its fleet restarts it three times (bridge/remote-fleet.ts, default
 * restart budget 3), then gives it up and the pool retires it. The stage used to have no engine left
 * then and left every later level unfinished; now a new engine takes over and the files equal the
 * in-process engine's.
 */
const KILLS = 4;
function rootWithLevels(): string {
  const root = mkdtempSync(join(tmpdir(), 'sbeval-simulate-replace-'));
  const levels = referenceLevels()
    .filter((l) => l.team === 'v1' && l.character === 'L')
    .slice(0, 7);
  levels.forEach((l, i) => {
    mkdirSync(join(root, 'team', 'levels', 'L'), { recursive: true });
    writeFileSync(join(root, 'team', 'levels', 'L', `team_L_${i + 1}.xml`), l.xml);
  });
  return root;
}

describe('simulate replaces the engines it started', () => {
  it('finishes every level after its only engine process is killed until its fleet gives it up, with the in-process files', async () => {
    const root = rootWithLevels();
    const reference = rootWithLevels();
    const clean = await runSimulateStage({ root: reference, engines: [new HeadlessEngine()], trials: 1 });
    expect(clean.unfinished).toBe(0);

    // After each finished level (until KILLS), one kill of the engine process: at once when it runs, else
    // as soon as its fleet has started it again (a restart may still be under way when the level ends).
    const killed: number[] = [];
    let owed = 0;
    const killOwed = () => {
      if (owed === 0) return;
      const engine = descendants(process.pid).find((p) => p.cmdline.includes('worker-process') && p.cmdline.includes('--instance'));
      if (!engine || killed.includes(engine.pid)) return;
      process.kill(engine.pid, 'SIGKILL');
      killed.push(engine.pid);
      owed -= 1;
    };
    const progress: ProgressSink = {
      ...SILENT_PROGRESS,
      tick: (_stage, outcome) => {
        if (outcome !== 'ok' || killed.length + owed >= KILLS) return;
        owed += 1;
        killOwed();
      },
    };
    const poll = setInterval(killOwed, 10);
    const summary = await runSimulateStage({ root, engine: 'headless-ws', workers: 1, trials: 1 }, progress).finally(() => clearInterval(poll));
    expect(killed).toHaveLength(KILLS);
    expect(summary.unfinished).toBe(0);
    const ours = snapshot(root, ['logs', '.sbeval']);
    const theirs = snapshot(reference, ['logs', '.sbeval']);
    expect([...ours.keys()].filter((f) => f.includes('/stability/') || f.includes('/images/')).length).toBeGreaterThan(7);
    expect([...ours.keys()]).toEqual([...theirs.keys()]);
    for (const [file, hash] of theirs) expect(ours.get(file), file).toBe(hash);
  }, 180_000);
});
