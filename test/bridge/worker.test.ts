import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { EngineFleet } from '../../bridge/remote-fleet.js';
import { headlessWorkerLauncher } from '../../bridge/remote-launchers.js';
import { EnginePool, type PoolEvent } from '../../orchestrator/pool/index.js';
import { REFERENCE_LEVELS, runSbeval } from '../helpers/cli.js';
import { Collected } from './collect.js';
import { goldenLevel, job, thirtyBlockLevel } from './levels.js';

/**
 * The headless engine as real `sbeval engine` child processes behind the protocol: results identical
 * to the in-process engine, a worker killed mid-level loses no level, and `sbeval simulate --engine
 * headless-ws` writes the same files as the in-process engine.
 */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sbeval-workers-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function sameRun(a: Collected, b: Collected): void {
  expect(b.bodies).toEqual(a.bodies);
  expect(b.calls).toEqual(a.calls);
  const fa = a.allFrames();
  const fb = b.allFrames();
  expect(Buffer.from(fb.states.buffer).equals(Buffer.from(fa.states.buffer))).toBe(true);
  expect(Buffer.from(fb.alive).equals(Buffer.from(fa.alive))).toBe(true);
  expect(b.eventList).toEqual(a.eventList);
  expect(b.captures.length).toBe(a.captures.length);
  a.captures.forEach((c, i) => expect(Buffer.from(b.captures[i]?.png ?? []).equals(Buffer.from(c.png))).toBe(true));
}

describe('sbeval engine workers (child processes)', () => {
  it('serve levels identical to the in-process engine, restart when killed mid-level, and lose no level', async () => {
    const logDir = join(dir, 'logs');
    const lines: string[] = [];
    const fleet = await EngineFleet.start({ launcher: headlessWorkerLauncher(), count: 2, logDir, restartDelayMs: 100, log: (l) => lines.push(l) });
    const pids = fleet.status().map((s) => s.pid as number);
    try {
      expect(fleet.engines.map((e) => e.id)).toEqual(['headless-ws-0', 'headless-ws-1']);
      expect(fleet.engines[0]?.identity.kind).toBe('headless');
      expect(pids.every((pid) => typeof pid === 'number' && alive(pid))).toBe(true);

      // Jobs: golden levels plus a long one (a 5000-step window keeps a worker busy for seconds).
      const names = ['V1_L_1', 'V1_L_5', 'result_22', 'result_23', 'result_24'];
      const jobs = names.map((n) => job(n, goldenLevel(n)));
      const long = job('long', thirtyBlockLevel(), { windowSteps: 5000, capture: false });
      const events: PoolEvent[] = [];
      let victim: string | undefined;
      const pool = new EnginePool({
        engines: fleet.engines,
        maxAttempts: 3,
        onEvent: (e) => {
          events.push(e);
          // Kill the worker the moment it is handed the long level (the pool sends the job right after
          // this event): it dies holding the level, whatever the machine's speed. (A kill some
          // milliseconds later raced the level: on a fast machine the level was done first.)
          if (e.type === 'attempt-start' && e.levelId === 'long' && !victim) {
            victim = e.engineId;
            const pid = fleet.status().find((s) => s.name === e.engineId)?.pid as number;
            process.kill(-pid, 'SIGKILL');
          }
        },
      });
      const results = new Map<string, Collected>();
      const runs = [long, ...jobs].map(async (j) => {
        const c = new Collected();
        const result = await pool.run({ job: j, sink: c.sink });
        results.set(j.levelId, c);
        return result;
      });
      const outcomes = await Promise.all(runs);

      // Every level completed; the long one failed once on the killed worker, then ran again.
      expect(outcomes).toHaveLength(6);
      const longOutcome = outcomes[0];
      expect(longOutcome?.attempts[0]).toMatchObject({ engineId: victim, failure: { kind: 'crashed' } });
      // The killed process's exit (the fleet closes its engine) and its socket's close race each other:
      // either one ends the attempt, and either says which engine and level (bridge/remote-engine.ts).
      expect(longOutcome?.attempts[0]?.failure?.reason).toMatch(new RegExp(`engine ${victim} was (lost|closed) during level long`));
      expect(longOutcome?.attempts.at(-1)?.failure).toBeUndefined();
      expect(events.some((e) => e.type === 'requeued' && e.levelId === 'long')).toBe(true);

      // Results identical to the in-process engine, the requeued level included.
      const local = new HeadlessEngine();
      for (const j of [long, ...jobs]) {
        const expected = new Collected();
        await local.run(j, expected.sink);
        sameRun(expected, results.get(j.levelId) as Collected);
      }

      // The killed worker was restarted under the same name and serves again.
      await expect.poll(() => fleet.status().find((s) => s.name === victim)?.connected, { timeout: 30_000 }).toBe(true);
      expect(fleet.restarts).toBe(1);
      expect(lines.join('\n')).toMatch(new RegExp(`${victim} killed by SIGKILL`));
      expect(readFileSync(join(logDir, `${victim}.log`), 'utf8').match(/=== sbeval: start/g)).toHaveLength(2);
      await pool.close();
    } finally {
      await fleet.close();
    }
    // Closed: bye, then every process gone.
    for (const s of fleet.status()) expect(s.pid).toBeUndefined();
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(readFileSync(join(logDir, 'headless-ws-1.log'), 'utf8')).toMatch(/orchestrator said bye/);
  }, 180_000);

  it('refuses a worker with the wrong token (exit code 2, no retries)', async () => {
    const { EngineEndpoint } = await import('../../bridge/endpoint.js');
    const ep = await EngineEndpoint.listen();
    try {
      const result = await runSbeval(['engine', '--connect', ep.url], { env: { SBEVAL_TOKEN: 'wrong' } });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(/\[handshake\] the orchestrator refused this engine: wrong token/);
      const noToken = await runSbeval(['engine', '--connect', ep.url], { env: { SBEVAL_TOKEN: '' } });
      expect(noToken.exitCode).toBe(2);
      expect(noToken.stderr).toMatch(/no token/);
    } finally {
      await ep.close();
    }
  }, 60_000);
});

describe('sbeval simulate --engine headless-ws', () => {
  const REFERENCE = join(REFERENCE_LEVELS, 'v1');

  function outputs(root: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const stage of ['images', 'stability']) {
      const base = join(root, 'v1', stage);
      if (!existsSync(base)) continue;
      for (const f of readdirSync(base, { recursive: true, encoding: 'utf8' }).sort()) {
        const path = join(base, f);
        if (statSync(path).isFile()) out[`${stage}/${f}`] = createHash('sha256').update(readFileSync(path)).digest('hex');
      }
    }
    return out;
  }

  it('writes the same files as the in-process engine', async () => {
    const roots = ['inprocess', 'sockets'].map((name) => {
      const root = join(dir, name);
      // Four levels keep the suite short (V1_L_1 collapses in the evaluator: several trials, busy streams).
      for (const n of [1, 5, 8, 9]) cpSync(join(REFERENCE, 'levels', 'L', `V1_L_${n}.xml`), join(root, 'v1', 'levels', 'L', `V1_L_${n}.xml`));
      return root;
    });
    const [inProcess, sockets] = roots as [string, string];
    const a = await runSbeval(['simulate', inProcess, '--engine', 'headless', '--workers', '1', '--json']);
    expect(a.exitCode).toBe(0);
    const engineLogs = join(dir, 'engine-logs');
    mkdirSync(engineLogs, { recursive: true });
    const b = await runSbeval(['simulate', sockets, '--engine', 'headless-ws', '--workers', '2', '--json'], { env: { SBEVAL_ENGINE_LOG_DIR: engineLogs } });
    // Nothing on stderr but the settings line every command prints.
    expect(b.stderr).toMatch(/^sbeval simulate: engine headless-ws \(flag\), [^\n]*$/);
    expect(b.exitCode).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({ succeeded: 4, failed: 0 });
    const expected = outputs(inProcess);
    expect(Object.keys(expected).sort()).toEqual([
      'images/L/V1_L_1.png',
      'images/L/V1_L_5.png',
      'images/L/V1_L_8.png',
      'images/L/V1_L_9.png',
      'stability/L.json',
    ]);
    expect(outputs(sockets)).toEqual(expected);
    // Two `sbeval engine` processes served it, each with its log, and both left on bye.
    const [fleetDir] = readdirSync(engineLogs);
    const logs = readdirSync(join(engineLogs, fleetDir as string)).sort();
    expect(logs).toEqual(['headless-ws-0.log', 'headless-ws-1.log']);
    for (const log of logs) expect(readFileSync(join(engineLogs, fleetDir as string, log), 'utf8')).toMatch(/stopped \(bye\) after \d+ level run/);
  }, 180_000);
});
