import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATION, type LevelJob, type LevelSink } from '../../bridge/engine.js';
import { ENGINE_KINDS, STARTED_ENGINES } from '../../bridge/engine-kinds.js';
import { createEngines } from '../../bridge/engines.js';
import type { FrameBatch, SimEvent } from '../../bridge/frames.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { WorkerEngine } from '../../bridge/headless/worker-engine.js';
import { teeSinks } from '../../bridge/trace.js';
import { GuardedSink } from '../../orchestrator/pool/index.js';
import { REFERENCE_LEVELS } from '../helpers/cli.js';

const LEVEL = join(REFERENCE_LEVELS, 'v1', 'levels', 'L', 'V1_L_1.xml');
const xml = readFileSync(LEVEL, 'utf8');

interface Stream {
  bodies: number;
  frames: FrameBatch[];
  events: SimEvent[];
  png?: Uint8Array;
}

function collector(): { sink: LevelSink; stream: Stream } {
  const stream: Stream = { bodies: 0, frames: [], events: [] };
  return {
    stream,
    sink: {
      loaded: (bodies) => (stream.bodies = bodies.length),
      frames: (batch) => stream.frames.push(batch),
      events: (events) => stream.events.push(...events),
      capture: (result) => (stream.png = result.png),
    },
  };
}

const job = (settings: Partial<LevelJob['settings']> = {}): LevelJob => ({ levelId: 'V1_L_1', xml, settings: { ...DEFAULT_SIMULATION, ...settings } });
const workers: WorkerEngine[] = [];
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
});

describe('HeadlessEngine', () => {
  it("streams loaded → frames/events → capture that the pool's stream guard accepts", async () => {
    const { sink, stream } = collector();
    let violation: Error | undefined;
    const guard = new GuardedSink(
      job(),
      sink,
      () => undefined,
      (v) => (violation = v),
    );
    await new HeadlessEngine().run(job(), guard);
    expect(guard.finish()).toBeUndefined();
    // The guard hands the capture on once it decoded as the evaluator's image (the pool's order).
    expect(await guard.verifyImages()).toBeUndefined();
    expect(await guard.settleCapture(true, 'headless')).toBeUndefined();
    expect(violation).toBeUndefined();
    expect(stream.bodies).toBe(6);
    expect(stream.frames.reduce((n, b) => n + b.stepCount, 0)).toBe(500 + 14 + 1);
    expect(stream.events.some((e) => e.kind === 'destroyed')).toBe(true);
    expect(stream.png).toBeInstanceOf(Uint8Array);
  });

  it('a level that cannot be loaded rejects with a level error (the pool does not retry it)', async () => {
    const error = await new HeadlessEngine().run({ ...job(), xml: '<Level><GameObjects>' }, collector().sink).catch((e: unknown) => e);
    expect(error).toMatchObject({ levelError: true, phase: 'input' });
    const unknown = xml.replace('type="SquareTiny"', 'type="Hexagon"');
    expect(await new HeadlessEngine().run({ ...job(), xml: unknown }, collector().sink).catch((e: unknown) => e)).toMatchObject({ levelError: true });
  });
});

describe('WorkerEngine (worker thread)', () => {
  it('streams exactly what the in-process engine streams', async () => {
    const [worker] = (await createEngines('headless', 1)) as WorkerEngine[];
    workers.push(worker!);
    const a = collector();
    const b = collector();
    await new HeadlessEngine().run(job({ trial: 3 }), a.sink);
    await worker!.run(job({ trial: 3 }), b.sink);
    expect(b.stream.bodies).toBe(a.stream.bodies);
    expect(b.stream.events).toEqual(a.stream.events);
    // The worker sends the trial in one batch (worker-main.ts), the in-process engine in batches of
    // `framesPerBatch`: the same steps, byte for byte.
    expect(b.stream.frames.length).toBe(1);
    expect(a.stream.frames.length).toBeGreaterThan(1);
    const states = (s: Stream) => Buffer.concat(s.frames.map((f) => Buffer.from(f.states.buffer, f.states.byteOffset, f.states.byteLength)));
    const alive = (s: Stream) => Buffer.concat(s.frames.map((f) => Buffer.from(f.alive)));
    expect(b.stream.frames[0]!.firstStep).toBe(0);
    expect(states(b.stream).equals(states(a.stream))).toBe(true);
    expect(alive(b.stream).equals(alive(a.stream))).toBe(true);
    expect(Buffer.from(b.stream.png!).equals(Buffer.from(a.stream.png!))).toBe(true);
    const error = await worker!.run({ ...job(), xml: 'not xml' }, collector().sink).catch((e: unknown) => e);
    expect(error).toMatchObject({ levelError: true });
    // Still usable after a level error.
    await worker!.run(job({ capture: false }), collector().sink);
  });

  it('reuses frame memory only for sinks that borrow it: kept batches stay intact, borrowed ones come back detached', async () => {
    const worker = new WorkerEngine();
    workers.push(worker);
    // A sink that keeps its batches (no borrowsFrames), then copies of what they hold.
    const kept = collector();
    await worker.run(job({ trial: 2, capture: false }), kept.sink);
    const keptCopy = kept.stream.frames.map((f) => f.states.slice());
    // Borrowing sinks: they read during the call, and the buffers go back to the worker afterwards.
    const seen: FrameBatch[] = [];
    const sums: number[] = [];
    const borrowing: LevelSink = {
      ...collector().sink,
      borrowsFrames: true,
      frames: (batch) => {
        seen.push(batch);
        sums.push(batch.states.reduce((a, b) => a + b, 0));
      },
    };
    for (let i = 0; i < 4; i++) await worker.run(job({ trial: 2, capture: false }), borrowing);
    // Each borrowed batch read the same trial as the kept one, and was handed back (detached here).
    const keptSum = kept.stream.frames.reduce((n, f) => n + f.states.reduce((a, b) => a + b, 0), 0);
    expect(sums).toEqual([keptSum, keptSum, keptSum, keptSum]);
    await expect.poll(() => seen.every((b) => b.states.length === 0 && b.states.buffer.byteLength === 0), { timeout: 30_000 }).toBe(true);
    // The kept batches were never handed back: later trials did not write over them.
    expect(
      kept.stream.frames.every(
        (f, i) => f.states.length > 0 && Buffer.from(f.states.buffer, f.states.byteOffset, f.states.byteLength).equals(Buffer.from(keptCopy[i]!.buffer)),
      ),
    ).toBe(true);
  });

  it('the stream guard (and a tee) borrows frames only when it forwards live to a sink that borrows them', () => {
    const borrowing: LevelSink = { ...collector().sink, borrowsFrames: true };
    expect(
      new GuardedSink(
        job(),
        borrowing,
        () => undefined,
        () => undefined,
      ).borrowsFrames,
    ).toBe(true);
    expect(
      new GuardedSink(
        job(),
        collector().sink,
        () => undefined,
        () => undefined,
      ).borrowsFrames,
    ).toBe(false);
    // Buffered (no live sink): it keeps every batch for replay.
    expect(
      new GuardedSink(
        job(),
        undefined,
        () => undefined,
        () => undefined,
      ).borrowsFrames,
    ).toBe(false);
    // A tee borrows only when every sink behind it does.
    expect(teeSinks(borrowing, { ...borrowing }).borrowsFrames).toBe(true);
    expect(teeSinks(borrowing, collector().sink).borrowsFrames).toBe(false);
  });

  it('a worker that dies fails its run with an engine error and reports alive = false', async () => {
    const worker = new WorkerEngine();
    workers.push(worker);
    await worker.started();
    const { sink } = collector();
    let killed = false;
    const running = worker.run(job({ windowSteps: 200_000, capture: false }), {
      ...sink,
      loaded: () => {
        if (!killed) {
          killed = true;
          void (worker as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
        }
      },
    });
    const error = await running.catch((e: unknown) => e);
    expect(error).toMatchObject({ phase: 'simulate' });
    expect((error as { levelError?: boolean }).levelError).toBeUndefined();
    expect(worker.alive).toBe(false);
    await expect(worker.run(job(), collector().sink)).rejects.toThrow(/not running/);
  });

  it('createEngines refuses unknown kinds and counts', async () => {
    await expect(createEngines('quantum', 1)).rejects.toThrow(/unknown engine "quantum"/);
    await expect(createEngines('headless', 0)).rejects.toThrow(/positive integer/);
    // The kinds it starts are the entries of bridge/engine-kinds.ts with a `start`: `bridge` has none.
    await expect(createEngines('bridge', 1)).rejects.toMatchObject({ message: 'unknown engine "bridge"', hint: 'choose one of: headless, headless-ws, unity' });
    await expect(createEngines('toString', 1)).rejects.toThrow(/unknown engine "toString"/);
    expect(STARTED_ENGINES).toEqual(ENGINE_KINDS.filter((kind) => kind !== 'bridge'));
  });
});

describe('determinism', () => {
  it('two separate processes stream byte-identical frames, events and PNGs', async () => {
    const script = fileURLToPath(new URL('./fixtures/digest.ts', import.meta.url));
    const levels = ['v1/levels/L/V1_L_1.xml', 'v2/levels/L/V2_L_6.xml', 'v3/levels/U/V3_U_3.xml'].map((p) => join(REFERENCE_LEVELS, p));
    const run = () => execa(process.execPath, ['--import', 'tsx', script, ...levels], { cwd: fileURLToPath(new URL('../../', import.meta.url)) });
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.stdout.split('\n')).toHaveLength(9);
    expect(a.stdout).toBe(b.stdout);
    // Different trials (creation orders) are different runs.
    const lines = a.stdout.split('\n').map((l) => l.split(' ')[1]);
    expect(new Set(lines).size).toBeGreaterThan(3);
  });
});
