import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import { EngineEndpoint } from '../../bridge/endpoint.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import type { RemoteEngine } from '../../bridge/remote-engine.js';
import { resolveSettings } from '../../orchestrator/config/index.js';
import type { EngineFactory } from '../../orchestrator/pool/index.js';
import { runCompetition } from '../../orchestrator/run/index.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { exampleCopy, PROJECT_ROOT, readRunLog } from './helpers/competition.js';

/**
 * `sbeval run` on engines that misbehave over real sockets (the bridge endpoint, engine processes that
 * speak the real protocol): one dies mid-level, one stalls mid-level, one answers garbage. Every level
 * must still complete, with results identical to a clean run, and the retries must be in the run log.
 */
const HELPER = fileURLToPath(new URL('./helpers/faulty-engine.ts', import.meta.url));
const MODES = ['die', 'stall', 'garbage'] as const;

const list = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => !f.startsWith('.'))
        .sort()
    : [];

describe('sbeval run with faulty engines', () => {
  it('completes every level when engines die, stall and answer garbage, and logs the retries', async () => {
    const root = exampleCopy({
      teams: ['BlockSmith', 'GridThinkers'],
      letters: ['I', 'L', 'T'],
      config: 'trials: 3\nlimits:\n  stallSeconds: 3\n  engineRetries: 2\n',
    });
    const endpoint = await EngineEndpoint.listen();
    const children: ResultPromise[] = [];
    const engineOf = new Map<string, string>(); // instance name → engine id
    const factory: EngineFactory = (slot, generation) => {
      const name = `faulty-${slot}-${generation}`;
      // The first engine of each slot misbehaves (die and stall on their 2nd level, garbage on its 1st); replacements are healthy.
      const mode = generation === 0 ? MODES[slot % MODES.length]! : 'ok';
      const connected = new Promise<RemoteEngine>((resolve) => {
        const off = endpoint.onEngine((engine) => {
          if (engine.instance !== name) return;
          off();
          engineOf.set(name, engine.id);
          resolve(engine);
        });
      });
      children.push(
        execa(process.execPath, ['--import', 'tsx', HELPER, endpoint.url, endpoint.token, name, mode, mode === 'garbage' ? '1' : '2'], {
          reject: false,
          cwd: PROJECT_ROOT,
        }),
      );
      return connected;
    };
    let report;
    try {
      report = await runCompetition({ config: resolveSettings(root, { workers: 3 }), engineFactory: factory });
    } finally {
      await endpoint.close();
      for (const child of children) child.kill('SIGKILL');
      await Promise.all(children);
    }

    // Every trial that became a level ended with an image and a stability entry.
    const levels = report.trials.filter((t) => !['none', 'raw', 'intermediate'].includes(t.stageReached));
    expect(levels.length).toBeGreaterThan(10);
    expect(levels.filter((t) => t.stageReached !== 'image')).toEqual([]);

    // Results identical to a clean in-process run of the same levels.
    const clean = mkdtempSync(join(tmpdir(), 'sbeval-faults-clean-'));
    for (const team of ['BlockSmith', 'GridThinkers']) cpSync(join(root, team, 'levels'), join(clean, team, 'levels'), { recursive: true });
    await runSimulateStage({ root: clean, engines: [new HeadlessEngine()] });
    for (const team of ['BlockSmith', 'GridThinkers']) {
      for (const file of list(join(clean, team, 'stability'))) {
        expect(readFileSync(join(root, team, 'stability', file), 'utf8'), `${team}/stability/${file}`).toBe(
          readFileSync(join(clean, team, 'stability', file), 'utf8'),
        );
      }
      for (const letter of list(join(clean, team, 'images'))) {
        for (const png of list(join(clean, team, 'images', letter))) {
          expect(readFileSync(join(root, team, 'images', letter, png)).equals(readFileSync(join(clean, team, 'images', letter, png))), png).toBe(true);
        }
      }
    }

    // The log shows each faulty engine failing an attempt, being retired and replaced, and levels retried.
    const lines = readRunLog(report.runLog);
    for (const [slot, mode] of MODES.entries()) {
      const id = engineOf.get(`faulty-${slot}-0`);
      expect(id, `${mode} engine connected`).toBeDefined();
      const failed = lines.filter((l) => l.type === 'pool.attempt-failed' && l.engineId === id);
      expect(failed.length, `${mode}: failed attempt in the log`).toBeGreaterThan(0);
      if (mode === 'stall') expect(failed[0]!.kind).toBe('stalled');
      expect(
        lines.some((l) => l.type === 'pool.engine-retired' && l.engineId === id),
        `${mode}: retired`,
      ).toBe(true);
      expect(engineOf.has(`faulty-${slot}-1`), `${mode}: replaced`).toBe(true);
    }
    const retried = lines.filter((l) => l.type === 'level-done' && ((l.outcome as { retries: unknown[] }).retries.length ?? 0) > 0);
    expect(retried.length).toBeGreaterThanOrEqual(MODES.length);
    expect(report.levels.retries).toBeGreaterThanOrEqual(MODES.length);
    // A retry is a transition of the level machine back into `simulating` after an engine fault.
    expect(
      lines.some((l) => l.type === 'transition' && l.to === 'simulating' && (l.output as { status?: string } | undefined)?.status === 'engine-fault'),
    ).toBe(true);
  }, 240_000);
});
