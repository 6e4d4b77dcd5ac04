import { afterEach, describe, expect, it, vi } from 'vitest';
import { EngineEndpoint } from '../../bridge/endpoint.js';
import type { LevelSink } from '../../bridge/engine.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { CLOSE, type FramesMessage } from '../../bridge/protocol.js';
import { EngineLostError, type RemoteEngine, RemoteRunError } from '../../bridge/remote-engine.js';
import { headlessCapabilities, runEngineWorker } from '../../bridge/worker.js';
import { Collected } from './collect.js';
import { goldenLevel, job } from './levels.js';
import { helloMessage, RawClient } from './raw-client.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function endpoint(options: Parameters<typeof EngineEndpoint.listen>[0] = {}): Promise<EngineEndpoint> {
  const e = await EngineEndpoint.listen(options);
  cleanups.push(() => e.close());
  return e;
}

/** The headless engine behind the protocol, in this process (the worker-process variant is in worker.test.ts). */
function startWorker(ep: EngineEndpoint, instance?: string) {
  const stop = new AbortController();
  const done = runEngineWorker({
    url: ep.url,
    token: ep.token,
    engine: new HeadlessEngine(),
    capabilities: headlessCapabilities(),
    ...(instance ? { instance } : {}),
    signal: stop.signal,
    reconnect: { maxAttempts: 3, initialDelayMs: 50 },
  });
  cleanups.push(async () => {
    stop.abort();
    await done.catch(() => undefined);
  });
  return { stop, done };
}

function framesMessage(runId: string, firstStep: number, bodyCount: number): FramesMessage {
  return {
    type: 'frames',
    runId,
    batch: { firstStep, stepCount: 1, bodyCount, states: new Float32Array(bodyCount * 6), alive: new Uint8Array(bodyCount).fill(1) },
  };
}

const BODY = { id: 0, kind: 'block' as const, type: 'SquareTiny', material: 'wood', counted: true, x: 2, y: -3.38, angle: 0 };

describe('endpoint and remote engine over a real socket', () => {
  it('listens on 127.0.0.1 with an OS-assigned port and a generated token', async () => {
    const ep = await endpoint();
    expect(ep.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    expect(ep.port).toBeGreaterThan(0);
    expect(ep.token).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives the same frames, events and PNG bytes as the in-process engine', async () => {
    const ep = await endpoint();
    startWorker(ep, 'w-1');
    const [remote] = (await ep.waitForEngines(1)) as [RemoteEngine];
    expect(remote.id).toBe('w-1');
    expect(remote.identity.kind).toBe('headless');

    for (const name of ['V1_L_1', 'V1_L_5']) {
      const levelJob = job(`golden/${name}`, goldenLevel(name), { captureRaw: true });
      const local = new Collected();
      await new HeadlessEngine().run(levelJob, local.sink);
      const viaSocket = new Collected();
      await remote.run(levelJob, viaSocket.sink);

      expect(viaSocket.calls).toEqual(local.calls);
      expect(viaSocket.bodies).toEqual(local.bodies);
      expect(viaSocket.dt).toBe(local.dt);
      expect(viaSocket.batches.map((b) => [b.firstStep, b.stepCount])).toEqual(local.batches.map((b) => [b.firstStep, b.stepCount]));
      const a = local.allFrames();
      const b = viaSocket.allFrames();
      expect(Buffer.from(b.states.buffer).equals(Buffer.from(a.states.buffer))).toBe(true);
      expect(Buffer.from(b.alive).equals(Buffer.from(a.alive))).toBe(true);
      expect(viaSocket.eventList).toEqual(local.eventList);
      expect(Buffer.from(viaSocket.captures[0]?.png ?? []).equals(Buffer.from(local.captures[0]?.png ?? [0]))).toBe(true);
      expect(Buffer.from(viaSocket.captures[0]?.raw ?? []).equals(Buffer.from(local.captures[0]?.raw ?? [0]))).toBe(true);
    }
  });

  it("reports a bad level as a level error (not the engine's fault)", async () => {
    const ep = await endpoint();
    startWorker(ep);
    const [remote] = (await ep.waitForEngines(1)) as [RemoteEngine];
    const error = await remote.run(job('bad', '<Level><GameObjects><Block type='), new Collected().sink).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteRunError);
    expect((error as RemoteRunError).levelError).toBe(true);
    // The recorded reason is the engine's text, the same as the in-process engine's (no engine id in it).
    const local = await new HeadlessEngine().run(job('bad', '<Level><GameObjects><Block type='), new Collected().sink).catch((e: unknown) => e);
    expect((error as Error).message).toBe((local as Error).message);
    expect((error as Error).message).toMatch(/^level XML cannot be loaded: /);
    expect((error as RemoteRunError).remotePhase).toBe('load');
    // The engine is still usable.
    await remote.run(job('good', goldenLevel('V1_L_1'), { capture: false }), new Collected().sink);
  });

  it('refuses a wrong token; the worker stops instead of retrying', async () => {
    const ep = await endpoint();
    const rejected: string[] = [];
    ep.onRejected((r) => rejected.push(`${r.code} ${r.reason}`));
    const result = runEngineWorker({
      url: ep.url,
      token: 'not-the-token',
      engine: new HeadlessEngine(),
      capabilities: headlessCapabilities(),
      reconnect: { maxAttempts: 5, initialDelayMs: 10 },
    });
    await expect(result).rejects.toThrow(/refused this engine: wrong token/);
    expect(ep.engines()).toHaveLength(0);
    await vi.waitFor(() => expect(rejected).toEqual([expect.stringMatching(new RegExp(`^${CLOSE.badToken} wrong token`))]), { timeout: 60_000 });
  });

  it('refuses an incompatible protocol version with error + close code 4002', async () => {
    const ep = await endpoint();
    const client = await RawClient.connect(ep.url);
    client.send(helloMessage(ep.token, { protocol: '2.0.0' }));
    const error = await client.next('error');
    expect(error.phase).toBe('handshake');
    expect(error.message).toMatch(/major versions differ \(ours 1\.\d+\.\d+, peer 2\.0\.0\)/);
    expect(await client.closed).toEqual({ code: CLOSE.incompatible, reason: error.message });
  });

  it('closes with a reason on malformed, unknown, text and oversize messages', async () => {
    const ep = await endpoint({ maxMessageBytes: 64 * 1024 });
    const cases: Array<[string, (c: RawClient) => void, number, RegExp]> = [
      ['not msgpack', (c) => c.sendBytes(new Uint8Array([0xc1, 0x00])), CLOSE.malformed, /not valid msgpack/],
      [
        'unknown type',
        (c) => c.sendBytes(new Uint8Array([0x81, 0xa4, 0x74, 0x79, 0x70, 0x65, 0xa3, 0x66, 0x6f, 0x6f])),
        CLOSE.unknownType,
        /unknown message type "foo"/,
      ],
      ['text frame', (c) => c.sendBytes('{"type":"hello"}'), CLOSE.malformed, /text frames/],
      ['before hello', (c) => c.send({ type: 'bye', reason: 'x' }), CLOSE.unexpected, /first message must be "hello"/],
    ];
    for (const [name, act, code, reason] of cases) {
      const client = await RawClient.connect(ep.url);
      act(client);
      const closed = await client.closed;
      expect(closed.code, name).toBe(code);
      expect(closed.reason, name).toMatch(reason);
    }
    const client = await RawClient.ready(ep.url, ep.token);
    client.sendBytes(new Uint8Array(64 * 1024 + 1));
    expect((await client.closed).code).toBe(CLOSE.tooLarge);
  });

  it('drops a connection that never says hello', async () => {
    const ep = await endpoint({ helloTimeoutMs: 200 });
    const client = await RawClient.connect(ep.url);
    const closed = await client.closed;
    expect(closed.code).toBe(CLOSE.timeout);
    expect(closed.reason).toMatch(/no "hello" within 200 ms/);
  });

  it('fails the level with EngineLostError when the engine disconnects mid-level', async () => {
    const ep = await endpoint();
    const client = await RawClient.ready(ep.url, ep.token, { instance: 'flaky' });
    const remote = ep.engines()[0] as RemoteEngine;
    const sink = new Collected();
    const running = remote.run(job('mid', goldenLevel('V1_L_1'), { capture: false }), sink.sink);
    const load = await client.next('load');
    client.send({ type: 'loaded', runId: load.runId, dt: 0.02, bodies: [BODY] });
    client.send(framesMessage(load.runId, 0, 1));
    // The partial stream reaches the orchestrator before the connection drops (an event, not a delay).
    await vi.waitFor(() => expect(sink.calls).toEqual(['loaded', 'frames']), { timeout: 60_000 });
    client.ws.terminate();
    const error = await running.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineLostError);
    expect((error as EngineLostError).retryable).toBe(true);
    expect((error as Error).message).toMatch(/engine flaky was lost during level mid/);
    expect(sink.calls).toEqual(['loaded', 'frames']);
    expect(remote.alive).toBe(false);
    await expect(remote.run(job('after', 'x'), sink.sink)).rejects.toBeInstanceOf(EngineLostError);
  });

  it('drops an engine that goes silent (heartbeat) and fails its level', async () => {
    const ep = await endpoint({ heartbeatMs: 50, heartbeatTimeoutMs: 300 });
    const client = await RawClient.ready(ep.url, ep.token);
    client.answerPings = false;
    const remote = ep.engines()[0] as RemoteEngine;
    const running = remote.run(job('silent', 'x', { capture: false }), new Collected().sink);
    const error = await running.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineLostError);
    expect((error as Error).message).toMatch(/no message from the engine for .* s \(heartbeat timeout 300 ms\)/);
  });

  it('treats a stream out of order as a protocol error', async () => {
    const ep = await endpoint();
    const client = await RawClient.ready(ep.url, ep.token);
    const remote = ep.engines()[0] as RemoteEngine;
    const running = remote.run(job('order', 'x', { capture: false }), new Collected().sink);
    const load = await client.next('load');
    client.send(framesMessage(load.runId, 0, 1));
    const error = await running.catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/"frames" before "loaded"/);
    const closed = await client.closed;
    expect(closed.code).toBe(CLOSE.unexpected);
  });

  it('checks frame contiguity and the capture the level asked for', async () => {
    const ep = await endpoint();
    for (const [name, script, pattern] of [
      [
        'gap',
        (c: RawClient, runId: string) => {
          c.send({ type: 'loaded', runId, dt: 0.02, bodies: [BODY] });
          c.send(framesMessage(runId, 0, 1));
          c.send(framesMessage(runId, 2, 1));
        },
        /start at step 2, expected 1/,
      ],
      [
        'no capture',
        (c: RawClient, runId: string) => {
          c.send({ type: 'loaded', runId, dt: 0.02, bodies: [BODY] });
          c.send({ type: 'done', runId, summary: { steps: 0, bodies: 1, events: 0, elapsedMs: 1 } });
        },
        /"done" without the capture/,
      ],
    ] as const) {
      const client = await RawClient.ready(ep.url, ep.token);
      const remote = (await ep.waitForEngines(1)).find((e) => e.alive && !e.busy) as RemoteEngine;
      const running = remote.run(job(name, 'x'), new Collected().sink);
      const load = await client.next('load');
      script(client, load.runId);
      await expect(running, name).rejects.toThrow(pattern);
      await client.closed;
    }
  });

  it('cancels a running level and reuses the engine afterwards', async () => {
    const ep = await endpoint();
    const client = await RawClient.ready(ep.url, ep.token);
    const remote = ep.engines()[0] as RemoteEngine;
    const abort = new AbortController();
    const running = remote.run(job('long', 'x', { capture: false }), new Collected().sink, abort.signal);
    const load = await client.next('load');
    client.send({ type: 'loaded', runId: load.runId, dt: 0.02, bodies: [BODY] });
    abort.abort();
    await expect(running).rejects.toThrow(/cancelled/);
    const cancel = await client.next('cancel');
    expect(cancel.runId).toBe(load.runId);
    // Late messages of the cancelled run are dropped; the next run waits for the engine to end it.
    client.send(framesMessage(load.runId, 0, 1));
    const sink = new Collected();
    const next = remote.run(job('next', 'x', { capture: false }), sink.sink);
    client.send({ type: 'error', runId: load.runId, phase: 'cancelled', fault: 'engine', message: 'cancelled' });
    const load2 = await client.next('load');
    expect(load2.levelId).toBe('next');
    client.send({ type: 'loaded', runId: load2.runId, dt: 0.02, bodies: [BODY] });
    client.send(framesMessage(load2.runId, 0, 1));
    client.send({ type: 'done', runId: load2.runId, summary: { steps: 0, bodies: 1, events: 0, elapsedMs: 1 } });
    await next;
    expect(sink.calls).toEqual(['loaded', 'frames']);
  });

  it('abandons a run whose sink refuses the stream, without blaming the engine', async () => {
    const ep = await endpoint();
    const client = await RawClient.ready(ep.url, ep.token);
    const remote = ep.engines()[0] as RemoteEngine;
    const refusing: LevelSink = {
      loaded: () => {
        throw new Error('consumer says no');
      },
      frames: () => {},
      events: () => {},
      capture: () => {},
    };
    const running = remote.run(job('refused', 'x', { capture: false }), refusing);
    const load = await client.next('load');
    client.send({ type: 'loaded', runId: load.runId, dt: 0.02, bodies: [BODY] });
    await expect(running).rejects.toThrow('consumer says no');
    expect((await client.next('cancel')).runId).toBe(load.runId);
    expect(remote.alive).toBe(true);
  });

  it('says bye to every engine on close; the worker exits cleanly', async () => {
    const ep = await EngineEndpoint.listen();
    const worker = runEngineWorker({ url: ep.url, token: ep.token, engine: new HeadlessEngine(), capabilities: headlessCapabilities() });
    await ep.waitForEngines(1);
    await ep.close();
    await expect(worker).resolves.toMatchObject({ reason: 'bye', connections: 1 });
  });

  it('a worker reconnects after the connection drops and gets a new engine', async () => {
    const ep = await endpoint();
    startWorker(ep, 'again');
    const [first] = (await ep.waitForEngines(1)) as [RemoteEngine];
    const second = new Promise<RemoteEngine>((resolve) => ep.onEngine(resolve));
    // Drop the connection from the orchestrator's side without a bye.
    (first as unknown as { socket: { terminate(e: Error): void } }).socket.terminate(new Error('network blip'));
    const again = await second;
    expect(again.id).toBe('again');
    expect(first.alive).toBe(false);
    await again.run(job('after-reconnect', goldenLevel('V1_L_1'), { capture: false }), new Collected().sink);
  });
});
