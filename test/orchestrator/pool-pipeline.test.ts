import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SIMULATION, type Engine, type EngineIdentity, type LevelJob, type LevelSink } from '../../bridge/engine.js';
import type { FrameBatch } from '../../bridge/frames.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { WorkerEngine } from '../../bridge/headless/worker-engine.js';
import { stepsToSimulate } from '../../bridge/window.js';
import { EnginePool, PoolJobError } from '../../orchestrator/pool/index.js';
import { REFERENCE_LEVELS } from '../helpers/cli.js';
import { BODIES, batch, FAKE_LEVEL_XML, honestCapture } from './helpers/fake-engines.js';

/**
 * Pipelined dispatch: an engine that takes two runs at once (the worker-thread engine) gets
 * its next job while it still runs one, so it never waits for the main thread — without weakening
 * any guarantee of the pool: a dying engine's every job is requeued, a job waiting behind
 * another is not timed while it waits, a queued job can be cancelled.
 */
const level = (name: string) => readFileSync(join(REFERENCE_LEVELS, 'v1', 'levels', 'L', `${name}.xml`), 'utf8');
const realJob = (levelId: string, settings: Partial<LevelJob['settings']> = {}): LevelJob => ({
  levelId,
  xml: level(levelId),
  settings: { ...DEFAULT_SIMULATION, ...settings },
});

interface Stream {
  states: Buffer[];
  png?: Uint8Array;
}

function recorder(): { sink: LevelSink; stream: Stream } {
  const stream: Stream = { states: [] };
  return {
    stream,
    sink: {
      loaded: () => undefined,
      frames: (b: FrameBatch) => stream.states.push(Buffer.from(b.states.buffer, b.states.byteOffset, b.states.byteLength)),
      events: () => undefined,
      capture: (result) => (stream.png = result.png),
    },
  };
}

const kill = (engine: WorkerEngine) => (engine as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();

describe('pipelined dispatch to worker-thread engines', () => {
  const engines: WorkerEngine[] = [];
  afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.close()));
  });

  it('hands the worker its next job while it runs one; each stream reaches its own sink, in hand-over order', async () => {
    const engine = new WorkerEngine();
    engines.push(engine);
    await engine.started();
    expect(engine.capacity).toBe(2);
    const pool = new EnginePool({ engines: [engine] });
    const order: string[] = [];
    const heldWhenLoaded: number[] = [];
    const streams = new Map<string, Stream>();
    const run = (id: string) =>
      pool.run({
        job: realJob(id),
        sink: () => {
          const { sink, stream } = recorder();
          streams.set(id, stream);
          return {
            ...sink,
            loaded: () => {
              order.push(`${id} loaded`);
              heldWhenLoaded.push(engine.inFlight);
            },
            capture: (result) => {
              order.push(`${id} capture`);
              sink.capture(result);
            },
          };
        },
      });
    const results = await Promise.all([run('V1_L_1'), run('V1_L_2')]);
    expect(results.map((r) => r.attempts.length)).toEqual([1, 1]);
    // The second job was in the worker's hands before the first one's stream began (strict hand-over
    // would have held it back until the first was done), and the worker ran them in hand-over order.
    expect(heldWhenLoaded[0]).toBe(2);
    expect(order).toEqual(['V1_L_1 loaded', 'V1_L_1 capture', 'V1_L_2 loaded', 'V1_L_2 capture']);
    // Each sink got its own level's stream: byte-identical to the in-process engine's.
    for (const id of ['V1_L_1', 'V1_L_2']) {
      const expected = recorder();
      await new HeadlessEngine().run(realJob(id), expected.sink);
      const got = streams.get(id)!;
      expect(Buffer.concat(got.states).equals(Buffer.concat(expected.stream.states))).toBe(true);
      expect(Buffer.from(got.png!).equals(Buffer.from(expected.stream.png!))).toBe(true);
    }
    await pool.close();
  });

  it('a worker that dies with two jobs in flight fails both attempts; both are requeued and finish on its replacement', async () => {
    const made: WorkerEngine[] = [];
    const pool = await EnginePool.create({
      size: 1,
      factory: async () => {
        const engine = new WorkerEngine();
        made.push(engine);
        engines.push(engine);
        await engine.started();
        return engine;
      },
    });
    let heldAtKill = 0;
    const sink = (_attempt: number, engine: Engine): LevelSink => ({
      ...recorder().sink,
      loaded: () => {
        // Killed while it runs the first job (a long window: it cannot be done yet) and holds the second.
        if (engine === made[0] && heldAtKill === 0) {
          heldAtKill = made[0].inFlight;
          void kill(made[0]);
        }
      },
    });
    const [first, second] = await Promise.all([
      pool.run({ job: realJob('V1_L_1', { windowSteps: 200_000, capture: false }), sink }),
      pool.run({ job: realJob('V1_L_2'), sink }),
    ]);
    expect(heldAtKill).toBe(2);
    for (const result of [first!, second!]) {
      expect(result.attempts.map((a) => [a.engineId, a.failure?.kind])).toEqual([
        [made[0]!.id, 'crashed'],
        [made[1]!.id, undefined],
      ]);
    }
    expect(made[0]!.alive).toBe(false);
    expect(pool.stats).toMatchObject({ retired: 1, replaced: 1 });
    await pool.close();
  });

  it('a cancelled run still waiting in the worker is rejected at once; the worker goes on with the others', async () => {
    const engine = new WorkerEngine();
    engines.push(engine);
    await engine.started();
    const first = engine.run(realJob('V1_L_1'), recorder().sink);
    const queued = new AbortController();
    const second = engine.run(realJob('V1_L_2'), recorder().sink, queued.signal);
    queued.abort();
    await expect(second).rejects.toThrow(/V1_L_2 cancelled/);
    await first;
    expect(engine.inFlight).toBe(0);
    const third = recorder();
    await engine.run(realJob('V1_L_2'), third.sink);
    expect(third.stream.png).toBeInstanceOf(Uint8Array);
  });
});

/**
 * An in-process engine that takes two runs at once and streams only when the test says so, to show
 * which watchdog runs when (fake timers: no real time passes).
 */
class LineEngine implements Engine {
  readonly identity: EngineIdentity = { kind: 'fake', description: 'test double', version: '0' };
  readonly capacity = 2;
  readonly runs: Array<{ job: LevelJob; sink: LevelSink; resolve: () => void }> = [];
  constructor(readonly id: string) {}
  run(job: LevelJob, sink: LevelSink, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      this.runs.push({ job, sink, resolve });
      signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
  }
  async close(): Promise<void> {}
}

const SETTINGS = { ...DEFAULT_SIMULATION, windowSteps: 5 };
const STEPS = stepsToSimulate(SETTINGS) + 1;

/** An honest trial streamed one step per 50 ms of fake time for `ticks` steps, then the rest at once. */
async function streamSlowly(run: LineEngine['runs'][0], ticks: number): Promise<void> {
  run.sink.loaded(BODIES, 0.02);
  for (let i = 0; i < ticks; i++) {
    await vi.advanceTimersByTimeAsync(50);
    run.sink.frames(batch(i, 1));
  }
  run.sink.frames(batch(ticks, STEPS - ticks));
  run.sink.capture({ png: honestCapture(FAKE_LEVEL_XML, SETTINGS.windowSteps) });
  run.resolve();
}
const fakeJob = (levelId: string): LevelJob => ({ levelId, xml: FAKE_LEVEL_XML, settings: SETTINGS });

describe('watchdogs of a job waiting inside an engine', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('start only when every job handed over before it has settled', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const engine = new LineEngine('line');
    const pool = new EnginePool({ engines: [engine], stallMs: 100, jobTimeoutMs: 250, maxAttempts: 1 });
    const a = pool.run({ job: fakeJob('A'), sink: () => recorder().sink });
    const b = pool.run({ job: fakeJob('B'), sink: () => recorder().sink });
    await vi.advanceTimersByTimeAsync(0);
    expect(engine.runs.map((r) => r.job.levelId)).toEqual(['A', 'B']);
    const [runA, runB] = engine.runs as [LineEngine['runs'][0], LineEngine['runs'][0]];
    // A streams for 200 ms (progress every 50 ms); B waits silently behind it, longer than its stall limit.
    await streamSlowly(runA, 4);
    expect((await a).attempts).toEqual([{ attempt: 1, engineId: 'line' }]);
    // Now B runs: 150 ms more (350 ms since it was handed over, past the 250 ms job limit).
    await streamSlowly(runB, 3);
    expect((await b).attempts).toEqual([{ attempt: 1, engineId: 'line' }]);

    // Once at the front, a silent job is watched: C finishes, D says nothing and stalls.
    const c = pool.run({ job: fakeJob('C'), sink: () => recorder().sink });
    const d = pool.run({ job: fakeJob('D'), sink: () => recorder().sink }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    const [runC] = engine.runs.slice(2) as [LineEngine['runs'][0]];
    runC.sink.loaded(BODIES, 0.02);
    runC.sink.frames(batch(0, STEPS));
    runC.sink.capture({ png: honestCapture(FAKE_LEVEL_XML, SETTINGS.windowSteps) });
    runC.resolve();
    await c;
    await vi.advanceTimersByTimeAsync(100);
    const failure = await d;
    expect(failure).toBeInstanceOf(PoolJobError);
    expect((failure as PoolJobError).kind).toBe('stalled');
    await pool.close();
  });

  it('a cancelled job waiting behind another leaves the engine and the running job alone', async () => {
    const engine = new LineEngine('line');
    const pool = new EnginePool({ engines: [engine] });
    const a = pool.run({ job: fakeJob('A'), sink: () => recorder().sink });
    const cancel = new AbortController();
    const b = pool.run({ job: fakeJob('B'), sink: () => recorder().sink, signal: cancel.signal }).catch((e: unknown) => e);
    await new Promise((resolve) => setImmediate(resolve));
    expect(engine.runs).toHaveLength(2);
    cancel.abort();
    expect(((await b) as PoolJobError).kind).toBe('cancelled');
    const [runA] = engine.runs as [LineEngine['runs'][0]];
    runA.sink.loaded(BODIES, 0.02);
    runA.sink.frames(batch(0, STEPS));
    runA.sink.capture({ png: honestCapture(FAKE_LEVEL_XML, SETTINGS.windowSteps) });
    runA.resolve();
    expect((await a).attempts).toHaveLength(1);
    expect(pool.health()).toEqual([expect.objectContaining({ engineId: 'line', busy: false, jobsDone: 1, totalFailures: 0 })]);
    await pool.close();
  });
});
