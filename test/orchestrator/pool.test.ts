import { describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATION, type LevelJob } from '../../bridge/engine.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { stepsToSimulate } from '../../bridge/window.js';
import { EnginePool, type PoolEvent, PoolJobError } from '../../orchestrator/pool/index.js';
import { until } from '../helpers/cli.js';
import { type Behaviour, FAKE_LEVEL_XML, FakeEngine, RecordingSink } from './helpers/fake-engines.js';

/** A fake with sbeval's own rules (as the headless engine): its level faults are verdicts. */
class RulesEngine extends FakeEngine {
  readonly ownRules = true;
}

// A short window keeps the fakes quick: steps 0…19 with the capture (bridge/window.ts).
const SETTINGS = { ...DEFAULT_SIMULATION, windowSteps: 5 };
const STEPS = stepsToSimulate(SETTINGS) + 1;
const job = (levelId: string, capture = true): LevelJob => ({ levelId, xml: FAKE_LEVEL_XML, settings: { ...SETTINGS, capture } });
const allSteps = Array.from({ length: STEPS }, (_, i) => i);
/**
 * The stall watchdog and job timeout in these tests. A healthy fake engine streams a job in a few
 * milliseconds, but on a loaded 2-core CI machine a pause of 50–120 ms between its batches happens, and
 * then a healthy engine was taken for a stalled one (an extra retirement, a failed count). A second
 * cannot be mistaken; the tests with a stalled or endless engine wait that long once.
 */
const STALL_MS = 1_000;

function collect() {
  const events: PoolEvent[] = [];
  return { events, onEvent: (e: PoolEvent) => events.push(e) };
}

/** The ids of the engines the pool discredited, in order. */
const discredited = (events: readonly PoolEvent[]) => events.flatMap((e) => (e.type === 'engine-discredited' ? [e.engineId] : []));

async function rejection(promise: Promise<unknown>): Promise<PoolJobError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PoolJobError) return error;
    throw error;
  }
  throw new Error('expected the job to fail');
}

describe('engine pool', () => {
  it('runs every job once on free engines and delivers exactly one complete stream per job', async () => {
    const engines = [new FakeEngine('e0'), new FakeEngine('e1')];
    const pool = new EnginePool({ engines });
    const sinks = Array.from({ length: 8 }, () => new RecordingSink());
    const results = await Promise.all(sinks.map((sink, i) => pool.run({ job: job(`L${i}`), sink })));
    for (const sink of sinks) {
      expect(sink.loadedCalls).toBe(1);
      expect(sink.steps).toEqual(allSteps);
      expect(sink.captures).toBe(1);
    }
    expect(results.every((r) => r.attempts.length === 1)).toBe(true);
    // Both engines worked, and together they ran each job exactly once.
    expect(engines[0]!.jobs.length).toBeGreaterThan(0);
    expect(engines[1]!.jobs.length).toBeGreaterThan(0);
    expect([...engines[0]!.jobs, ...engines[1]!.jobs].sort()).toEqual(sinks.map((_, i) => `L${i}`).sort());
    await pool.close();
    expect(engines.map((e) => e.closeCalls)).toEqual([1, 1]);
  });

  it('requeues the job of an engine that dies mid-level on another engine, and the sink sees only the good attempt', async () => {
    const dying = new FakeEngine('dying', ['die', 'ok']);
    const healthy = new FakeEngine('healthy');
    const { events, onEvent } = collect();
    const pool = new EnginePool({ engines: [dying, healthy], onEvent });
    const sink = new RecordingSink();
    // Only one job: the dying engine gets it first (list order), fails after streaming a batch.
    const result = await pool.run({ job: job('L0'), sink });
    expect(result.engineId).toBe('healthy');
    expect(result.attempts.map((a) => [a.engineId, a.failure?.kind])).toEqual([
      ['dying', 'crashed'],
      ['healthy', undefined],
    ]);
    expect(result.attempts[0]!.failure!.reason).toMatch(/connection lost/);
    expect(sink.loadedCalls).toBe(1);
    expect(sink.steps).toEqual(allSteps);
    expect(events.some((e) => e.type === 'requeued' && e.levelId === 'L0')).toBe(true);
    // One crash is not yet a dead engine (maxConsecutiveFailures 2): it stays in the pool.
    expect(
      pool
        .health()
        .map((h) => h.engineId)
        .sort(),
    ).toEqual(['dying', 'healthy']);
    await pool.close();
  });

  it('retires an engine that reports itself dead after a crash and replaces it through the factory', async () => {
    const made: FakeEngine[] = [];
    const scripts: Behaviour[][] = [['die'], ['ok']];
    const { events, onEvent } = collect();
    const pool = await EnginePool.create({
      size: 2,
      factory: async (slot, generation) => {
        const engine = new FakeEngine(`s${slot}g${generation}`, generation === 0 ? scripts[slot] : ['ok']);
        made.push(engine);
        return engine;
      },
      onEvent,
    });
    const dying = made[0]!;
    dying.run = (async (j, s, signal) => {
      await FakeEngine.prototype.run.call(dying, j, s, signal).catch((error: unknown) => {
        dying.alive = false; // a remote engine whose socket closed
        throw error;
      });
    }) as FakeEngine['run'];
    const sinks = [new RecordingSink(), new RecordingSink(), new RecordingSink()];
    await Promise.all(sinks.map((sink, i) => pool.run({ job: job(`L${i}`), sink })));
    expect(sinks.every((s) => s.steps.length === STEPS && s.loadedCalls === 1)).toBe(true);
    expect(events).toContainEqual(expect.objectContaining({ type: 'engine-retired', engineId: 's0g0' }));
    expect(events).toContainEqual({ type: 'engine-added', engineId: 's0g1', slot: 0 });
    expect(dying.closeCalls).toBe(1);
    await pool.close();
  });

  it('detects a stalled engine with the progress watchdog, retires and replaces it, and the job completes', async () => {
    const { events, onEvent } = collect();
    let created = 0;
    const pool = await EnginePool.create({
      size: 1,
      stallMs: STALL_MS,
      factory: async (slot, generation) => {
        created += 1;
        return new FakeEngine(`s${slot}g${generation}`, generation === 0 ? ['stall'] : ['ok']);
      },
      onEvent,
    });
    const sink = new RecordingSink();
    const result = await pool.run({ job: job('L0'), sink });
    expect(result.attempts[0]!.failure).toEqual({ kind: 'stalled', reason: expect.stringMatching(new RegExp(`s0g0 stalled: no progress for ${STALL_MS} ms`)) });
    expect(result.engineId).toBe('s0g1');
    expect(created).toBe(2);
    expect(sink.steps).toEqual(allSteps);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['attempt-failed', 'engine-retired', 'requeued', 'engine-added', 'job-done']));
    await pool.close();
  });

  it('ends an attempt that keeps progressing past the job timeout', async () => {
    const pool = new EnginePool({ engines: [new FakeEngine('slow', ['endless']), new FakeEngine('fine')], jobTimeoutMs: STALL_MS, stallMs: 10_000 });
    const result = await pool.run({ job: job('L0'), sink: new RecordingSink() });
    expect(result.attempts[0]!.failure?.kind).toBe('timeout');
    expect(result.attempts[0]!.failure?.reason).toMatch(new RegExp(`slow took longer than ${STALL_MS} ms`));
    expect(result.engineId).toBe('fine');
    await pool.close();
  });

  const garbage: Array<[Behaviour, RegExp]> = [
    ['garbage-order', /`frames` before `loaded`/],
    ['garbage-shape', /for 4 bodies, `loaded` announced 3/],
    ['garbage-nan', /non-finite state at step 5/],
    ['garbage-gap', /start at step 6, expected 5/],
    ['garbage-png', /not a PNG image/],
    ['garbage-no-capture', /without the requested capture/],
    // Results that are not this level's, or not results at all.
    ['garbage-bodies', /`loaded` does not match the level: body 1 is block "SquareTiny", the level has block "RectSmall"/],
    ['garbage-frozen', /frozen frames: no body moved at any step/],
    ['garbage-short', /streamed 10 steps, the window has 20 \(steps 0…19\)/],
    ['garbage-png-junk', /the capture does not decode as a PNG/],
    ['garbage-png-size', /the capture is 1×1, not 1024×1024/],
    ['garbage-event', /a contact between 0 and 7, not bodies of the level/],
  ];
  for (const [behaviour, message] of garbage) {
    it(`treats an engine that answers garbage (${behaviour}) as faulty and reruns the job elsewhere`, async () => {
      const bad = new FakeEngine('bad', [behaviour]);
      const pool = new EnginePool({ engines: [bad, new FakeEngine('good')] });
      const sink = new RecordingSink();
      const result = await pool.run({ job: job('L0'), sink });
      expect(result.attempts[0]).toEqual({ attempt: 1, engineId: 'bad', failure: { kind: 'garbage', reason: expect.stringMatching(message) } });
      expect(result.engineId).toBe('good');
      expect(sink.loadedCalls).toBe(1);
      expect(sink.steps).toEqual(allSteps);
      expect(sink.captures).toBe(1);
      // Garbage means the engine's stream cannot be trusted any more: it is retired.
      expect(pool.health().map((h) => h.engineId)).toEqual(['good']);
      expect(bad.closeCalls).toBe(1);
      await pool.close();
    });
  }

  it("fails a level error of an engine with sbeval's own rules at once, without retrying, and keeps the engine", async () => {
    const engine = new RulesEngine('e0', ['level-error', 'ok']);
    const other = new FakeEngine('e1');
    const pool = new EnginePool({ engines: [engine, other] });
    const error = await rejection(pool.run({ job: job('BAD'), sink: new RecordingSink() }));
    expect(error.kind).toBe('level');
    expect(error.message).toBe('BAD: unknown block type');
    expect(error.detail).toBeUndefined();
    expect(error.attempts).toHaveLength(1);
    expect(other.jobs).toEqual([]);
    await pool.run({ job: job('L1'), sink: new RecordingSink() });
    expect(pool.health().find((h) => h.engineId === 'e0')?.consecutiveFailures).toBe(0);
    await pool.close();
  });

  it("checks a level fault claimed by an engine without sbeval's rules on another engine, and discredits the claimer when that one runs the level", async () => {
    const claimer = new FakeEngine('claimer', ['level-error']);
    const other = new FakeEngine('other');
    const { events, onEvent } = collect();
    const pool = new EnginePool({ engines: [claimer, other], onEvent, maxAttempts: 1, referee: () => Promise.reject(new Error('no referee is needed here')) });
    const sink = new RecordingSink();
    const result = await pool.run({ job: job('L0'), sink });
    expect(result.engineId).toBe('other');
    expect(result.attempts.map((a) => [a.engineId, a.failure?.kind])).toEqual([
      ['claimer', 'level-claim'],
      ['other', undefined],
    ]);
    expect(sink.steps).toEqual(allSteps);
    expect(events).toContainEqual({
      type: 'engine-discredited',
      engineId: 'claimer',
      engineSerial: 0,
      reason: expect.stringMatching(/said level L0 cannot run \(L0: unknown block type\), but engine other ran it/),
    });
    expect(pool.isDiscredited(0)).toBe(true);
    expect(pool.isDiscredited(result.engineSerial)).toBe(false);
    expect(discredited(events)).toEqual(['claimer']);
    expect(pool.health().map((h) => h.engineId)).toEqual(['other']);
    expect(claimer.closeCalls).toBe(1);
    await pool.close();
  });

  it('with no other engine, hands a claimed level fault to the referee: its verdict is the reason, the claim the detail', async () => {
    const claimer = new FakeEngine('claimer', ['level-error']);
    const { events, onEvent } = collect();
    const referees: HeadlessEngine[] = [];
    const referee = async () => {
      const engine = new HeadlessEngine(`referee-${referees.length}`);
      referees.push(engine);
      return engine;
    };
    const pool = new EnginePool({ engines: [claimer], onEvent, maxAttempts: 1, referee });
    // A level sbeval's rules cannot load either: the job fails with the rules' reason, not the claim's text.
    const unknown = FAKE_LEVEL_XML.replace('type="RectSmall"', 'type="RectHuge"');
    const expected = await new HeadlessEngine().run({ levelId: 'BAD', xml: unknown, settings: SETTINGS }, new RecordingSink()).then(
      () => new Error('the level loaded'),
      (e: unknown) => e as Error,
    );
    const error = await rejection(pool.run({ job: { ...job('BAD'), xml: unknown }, sink: new RecordingSink() }));
    expect(error.kind).toBe('level');
    expect(error.message).toBe(expected.message);
    expect(error.message).not.toMatch(/claimer|BAD: unknown block type/);
    expect(error.detail).toBe('engine claimer said: BAD: unknown block type');
    expect(error.attempts.map((a) => [a.engineId, a.failure?.kind])).toEqual([
      ['claimer', 'level-claim'],
      ['referee-0', 'level'],
    ]);
    // The claim held: the claimer stays; the referee is not one of the pool's engines.
    expect(discredited(events)).toEqual([]);
    expect(pool.health().map((h) => h.engineId)).toEqual(['claimer']);
    expect(pool.size).toBe(1);

    // A level the rules run: the referee's stream is the result, and the claimer lied.
    const sink = new RecordingSink();
    const result = await pool.run({ job: job('L1'), sink });
    expect(result.engineId).toBe('referee-0');
    expect(sink.steps).toEqual(allSteps);
    expect(pool.isDiscredited(result.engineSerial)).toBe(false);
    expect(discredited(events)).toEqual(['claimer']);
    expect(referees).toHaveLength(1); // made once, on first need
    await pool.close();
  });

  it('without a referee, a claimed level fault fails the job as the engine said (one engine measured on its own)', async () => {
    const { events, onEvent } = collect();
    const pool = new EnginePool({ engines: [new FakeEngine('unity-like', ['level-error'])], referee: false, onEvent });
    const error = await rejection(pool.run({ job: job('BAD'), sink: new RecordingSink() }));
    expect([error.kind, error.message]).toEqual(['level', 'BAD: unknown block type']);
    expect(discredited(events)).toEqual([]);
    await pool.close();
  });

  it('discredits an engine that streams garbage', async () => {
    const { events, onEvent } = collect();
    const pool = new EnginePool({ engines: [new FakeEngine('bad', ['garbage-bodies']), new FakeEngine('good')], onEvent });
    await pool.run({ job: job('L0'), sink: new RecordingSink() });
    expect(discredited(events)).toEqual(['bad']);
    await pool.close();
  });

  it('discredits an engine, not its id: a replacement under the same id is trusted, results of the liar stay discredited', async () => {
    const { events, onEvent } = collect();
    // Slot 0 is a liar at first; its replacement comes back under the same id (as a fleet's or a reconnecting engine's does) and is honest.
    const factory = async (_slot: number, generation: number) => new FakeEngine('unity-0', generation === 0 ? ['ok', 'level-error'] : ['ok']);
    const pool = await EnginePool.create({ factory, size: 1, onEvent, maxAttempts: 1, referee: async () => new HeadlessEngine('referee') });
    const first = await pool.run({ job: job('L0'), sink: new RecordingSink() });
    const refuted = await pool.run({ job: job('L1'), sink: new RecordingSink() });
    expect(refuted.engineId).toBe('referee');
    expect(discredited(events)).toEqual(['unity-0']);
    expect(pool.isDiscredited(first.engineSerial)).toBe(true);
    // The next job waits for the replacement the factory is making.
    const after = await pool.run({ job: job('L2'), sink: new RecordingSink() });
    expect(after.engineId).toBe('unity-0');
    expect(after.engineSerial).not.toBe(first.engineSerial);
    expect(pool.isDiscredited(after.engineSerial)).toBe(false);
    await pool.close();
  });

  it('bounds the retries and records every attempt with its reason', async () => {
    const engines = ['a', 'b', 'c', 'd'].map((id) => new FakeEngine(id, ['die']));
    const pool = new EnginePool({ engines, maxAttempts: 3 });
    const error = await rejection(pool.run({ job: job('L0'), sink: new RecordingSink() }));
    expect(error.kind).toBe('crashed');
    expect(error.attempts.map((a) => a.engineId)).toEqual(['a', 'b', 'c']);
    expect(error.attempts.every((a) => /connection lost/.test(a.failure?.reason ?? ''))).toBe(true);
    expect(error.message).toMatch(/after 3 attempts/);
    expect(engines[3]!.jobs).toEqual([]);
    await pool.close();
  });

  it('fails queued jobs with "no engine left" when every engine died and the restart budget is spent', async () => {
    const { events, onEvent } = collect();
    const pool = await EnginePool.create({
      size: 1,
      maxReplacements: 1,
      maxAttempts: 5,
      stallMs: STALL_MS,
      factory: async (slot, generation) => new FakeEngine(`s${slot}g${generation}`, ['stall']),
      onEvent,
    });
    const error = await rejection(pool.run({ job: job('L0'), sink: new RecordingSink() }));
    expect(error.kind).toBe('no-engines');
    expect(error.message).toMatch(/no engine left.*stalled/);
    expect(error.attempts.map((a) => a.engineId)).toEqual(['s0g0', 's0g1']);
    expect(events).toContainEqual({ type: 'engine-replace-failed', slot: 0, reason: 'restart budget of 1 replacements used up' });
    await pool.close();
  });

  it('prefers engines the request does not avoid', async () => {
    const a = new FakeEngine('a');
    const b = new FakeEngine('b');
    const pool = new EnginePool({ engines: [a, b] });
    const result = await pool.run({ job: job('L0'), sink: new RecordingSink(), avoidEngines: ['a'] });
    expect(result.engineId).toBe('b');
    expect(a.jobs).toEqual([]);
    await pool.close();
  });

  it('streams each attempt to a fresh sink when given a sink factory', async () => {
    const pool = new EnginePool({ engines: [new FakeEngine('dying', ['die']), new FakeEngine('ok')] });
    const sinks: RecordingSink[] = [];
    await pool.run({
      job: job('L0'),
      sink: (attempt) => {
        expect(attempt).toBe(sinks.length + 1);
        const sink = new RecordingSink();
        sinks.push(sink);
        return sink;
      },
    });
    expect(sinks).toHaveLength(2);
    // The first attempt got its partial stream live; the second the whole one.
    expect(sinks[0]!.steps.length).toBeGreaterThan(0);
    expect(sinks[0]!.steps.length).toBeLessThan(STEPS);
    expect(sinks[1]!.steps).toEqual(allSteps);
    await pool.close();
  });

  it('cancels a queued job without running it and a running one through the engine signal', async () => {
    const engine = new FakeEngine('e0', ['wait-abort', 'ok']);
    const pool = new EnginePool({ engines: [engine] });
    const running = new AbortController();
    const queued = new AbortController();
    const first = pool.run({ job: job('RUNNING'), sink: new RecordingSink(), signal: running.signal });
    const second = pool.run({ job: job('QUEUED'), sink: new RecordingSink(), signal: queued.signal });
    queued.abort();
    const queuedError = await rejection(second);
    expect(queuedError.kind).toBe('cancelled');
    expect(queuedError.attempts).toEqual([]);
    running.abort(new Error('user pressed Ctrl-C'));
    const runningError = await rejection(first);
    expect(runningError.kind).toBe('cancelled');
    expect(runningError.message).toMatch(/Ctrl-C/);
    expect(engine.aborts).toBe(1);
    expect(engine.jobs).toEqual(['RUNNING']);
    // The engine honoured the abort, so it is free again for the next job.
    const third = new RecordingSink();
    await pool.run({ job: job('NEXT'), sink: third });
    expect(third.steps).toEqual(allSteps);
    await pool.close();
  });

  it('closes cleanly: queued and running jobs are cancelled, engines closed once, later runs refused', async () => {
    const engine = new FakeEngine('e0', ['wait-abort']);
    const pool = new EnginePool({ engines: [engine] });
    const running = pool.run({ job: job('A'), sink: new RecordingSink() });
    const queued = pool.run({ job: job('B'), sink: new RecordingSink() });
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([pool.close(), pool.close()]);
    expect((await rejection(running)).kind).toBe('cancelled');
    expect((await rejection(queued)).kind).toBe('cancelled');
    expect(engine.closeCalls).toBe(1);
    expect((await rejection(pool.run({ job: job('C'), sink: new RecordingSink() }))).message).toMatch(/closed/);
  });

  it('refuses to start when an engine fails to launch, and closes the ones that started', async () => {
    const started: FakeEngine[] = [];
    await expect(
      EnginePool.create({
        size: 2,
        factory: async (slot) => {
          if (slot === 1) throw new Error('port in use');
          const engine = new FakeEngine(`s${slot}`);
          started.push(engine);
          return engine;
        },
      }),
    ).rejects.toThrow(/1 of 2 engines failed to start: port in use/);
    expect(started[0]!.closeCalls).toBe(1);
  });

  it('with awaitEngines, jobs wait for engines that dial in later instead of failing', async () => {
    let closed = 0;
    const pool = new EnginePool({ awaitEngines: true, onClosed: async () => void (closed += 1) });
    const sink = new RecordingSink();
    const job1 = pool.run({ job: job('L0'), sink });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pool.queued).toBe(1);
    const late = new FakeEngine('late');
    pool.add(late);
    const result = await job1;
    expect(result.engineId).toBe('late');
    expect(sink.steps).toEqual(allSteps);
    await pool.close();
    expect(late.closeCalls).toBe(1);
    expect(closed).toBe(1);
  });

  it('with awaitEngines and engineWaitMs, jobs left without engines wait that long, then fail with "no engine left" until one dials in', async () => {
    // The only engine streams another level's body table: discredited and retired on its first job.
    const pool = new EnginePool({ awaitEngines: true, engineWaitMs: 200, engines: [new FakeEngine('liar', ['garbage-bodies'])] });
    const stranded = await rejection(pool.run({ job: job('L0'), sink: new RecordingSink() }));
    expect(stranded.kind).toBe('no-engines');
    expect(stranded.message).toMatch(/^L0: no engine left: engine liar was retired for a lie; no engine dialled in within 0\.2 s$/);
    // Jobs asked for after fail at once, until an engine dials in; then they run again.
    expect((await rejection(pool.run({ job: job('L1'), sink: new RecordingSink() }))).message).toBe(
      'L1: no engine left: engine liar was retired for a lie; no engine dialled in within 0.2 s',
    );
    pool.add(new FakeEngine('late'));
    expect((await pool.run({ job: job('L2'), sink: new RecordingSink() })).engineId).toBe('late');
    await pool.close();
  });

  it('with awaitEngines and engineWaitMs, a job whose engine left runs on one that dials in within the wait', async () => {
    const pool = new EnginePool({ awaitEngines: true, engineWaitMs: 600_000, maxConsecutiveFailures: 1, engines: [new FakeEngine('crashes', ['die'])] });
    const sink = new RecordingSink();
    const waiting = pool.run({ job: job('L0'), sink });
    await until(() => pool.size === 0 && pool.queued === 1, 'the crashed engine retired and its job queued again');
    pool.add(new FakeEngine('late'));
    expect((await waiting).engineId).toBe('late');
    expect(sink.steps).toEqual(allSteps);
    // Closing clears the wait's timer (the test process would otherwise hold it for ten minutes).
    await pool.close();
  });

  it('without awaitEngines, an empty pool fails jobs at once with no-engines', async () => {
    const pool = new EnginePool({});
    expect((await rejection(pool.run({ job: job('L0'), sink: new RecordingSink() }))).kind).toBe('no-engines');
    await pool.close();
  });

  it('replaces a retired starting engine through the factory, so queued jobs still run', async () => {
    // The run gives the pool its starting engines and a factory for replacements (orchestrator/run).
    const starting = [new FakeEngine('start-0', ['stall']), new FakeEngine('start-1', ['stall'])];
    const made: Array<[number, number]> = [];
    const { events, onEvent } = collect();
    const pool = new EnginePool({
      engines: starting,
      stallMs: STALL_MS,
      settleMs: 20,
      onEvent,
      factory: async (slot, generation) => {
        made.push([slot, generation]);
        return new FakeEngine(`s${slot}g${generation}`);
      },
    });
    const sinks = Array.from({ length: 6 }, () => new RecordingSink());
    const results = await Promise.allSettled(sinks.map((sink, i) => pool.run({ job: job(`L${i}`), sink, maxAttempts: 2 })));
    expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : r.status))).toEqual(sinks.map(() => 'fulfilled'));
    for (const sink of sinks) expect(sink.steps).toEqual(allSteps);
    expect(made.sort()).toEqual([
      [0, 1],
      [1, 1],
    ]);
    expect(
      events
        .filter((e) => e.type === 'engine-retired')
        .map((e) => (e as { engineId: string }).engineId)
        .sort(),
    ).toEqual(['start-0', 'start-1']);
    expect(pool.size).toBe(2);
    expect(pool.stats).toEqual({ retired: 2, replaced: 2, replaceFailed: 0 });
    await pool.close();
  });

  it('tries a failing replacement again within the restart budget, and says so when the budget is used up', async () => {
    let calls = 0;
    const { events, onEvent } = collect();
    const pool = new EnginePool({
      engines: [new FakeEngine('start-0', ['stall'])],
      stallMs: STALL_MS,
      settleMs: 20,
      maxReplacements: 3,
      onEvent,
      factory: async (slot, generation) => {
        calls += 1;
        if (calls < 3) throw new Error(`launch ${calls} failed`);
        return new FakeEngine(`s${slot}g${generation}`);
      },
    });
    const sink = new RecordingSink();
    await pool.run({ job: job('L0'), sink, maxAttempts: 2 });
    expect(sink.steps).toEqual(allSteps);
    expect(calls).toBe(3);
    expect(events.filter((e) => e.type === 'engine-replace-failed').map((e) => (e as { reason: string }).reason)).toEqual([
      'launch 1 failed',
      'launch 2 failed',
    ]);
    expect(pool.stats).toEqual({ retired: 1, replaced: 1, replaceFailed: 0 });
    await pool.close();

    // A factory that never works: the budget runs out, the pool says so, and jobs fail with the reason.
    const broken = collect();
    const hopeless = new EnginePool({
      engines: [new FakeEngine('only', ['stall'])],
      stallMs: STALL_MS,
      settleMs: 20,
      maxReplacements: 2,
      onEvent: broken.onEvent,
      factory: async () => {
        throw new Error('no binary');
      },
    });
    const failed = await rejection(hopeless.run({ job: job('L1'), sink: new RecordingSink(), maxAttempts: 3 }));
    expect(failed.kind).toBe('no-engines');
    expect(failed.message).toMatch(/no engine left to run it \(last failure: engine only stalled/);
    expect(broken.events.filter((e) => e.type === 'engine-replace-failed').map((e) => (e as { reason: string }).reason)).toEqual(['no binary', 'no binary']);
    expect(hopeless.stats).toEqual({ retired: 1, replaced: 0, replaceFailed: 1 });
    await hopeless.close();
  });
});
