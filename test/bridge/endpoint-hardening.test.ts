import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { packValue } from '../../bridge/codec.js';
import { EngineEndpoint, MAX_UNAUTHENTICATED, PRE_AUTH_BYTES } from '../../bridge/endpoint.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { CLOSE, encodeMessage, PROTOCOL_VERSION } from '../../bridge/protocol.js';
import { closeReason, MAX_CLOSE_REASON_BYTES } from '../../bridge/remote-socket.js';
import { headlessCapabilities, runEngineWorker } from '../../bridge/worker.js';
import { Collected } from './collect.js';
import { goldenLevel, job } from './levels.js';
import { RawClient } from './raw-client.js';

/**
 * The endpoint against strangers: close reasons that fit the WebSocket
 * limit whatever the message, no uncaught throw from a socket, a small allowance before `hello`, a
 * deadline from the TCP connection on, and a cap on connections that have not authenticated.
 */
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function endpoint(options: Parameters<typeof EngineEndpoint.listen>[0] = {}): Promise<EngineEndpoint> {
  const e = await EngineEndpoint.listen(options);
  cleanups.push(() => e.close());
  return e;
}

function tcp(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
    cleanups.push(() => socket.destroy());
  });
}

const closedTcp = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

/** A real engine behind the protocol, proving the endpoint still serves after the abuse. */
async function servesAnEngine(ep: EngineEndpoint): Promise<void> {
  const stop = new AbortController();
  const done = runEngineWorker({
    url: ep.url,
    token: ep.token,
    engine: new HeadlessEngine(),
    capabilities: headlessCapabilities(),
    signal: stop.signal,
    reconnect: { maxAttempts: 5, initialDelayMs: 50 },
  });
  cleanups.push(async () => {
    stop.abort();
    await done.catch(() => undefined);
  });
  const [remote] = await ep.waitForEngines(1, 30_000);
  const sink = new Collected();
  await remote!.run(job('after-abuse', goldenLevel('V1_L_1'), { capture: false }), sink.sink);
  expect(sink.calls[0]).toBe('loaded');
}

describe('close reasons', () => {
  it('always fit 123 UTF-8 bytes, keep whole characters and keep short texts as they are', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        const reason = closeReason(text);
        expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(MAX_CLOSE_REASON_BYTES);
        if (Buffer.byteLength(text) <= MAX_CLOSE_REASON_BYTES) expect(reason).toBe(text);
        else {
          expect(reason.endsWith('…')).toBe(true);
          expect(text.startsWith(reason.slice(0, -1))).toBe(true);
          // No half of a surrogate pair at the cut.
          expect(Buffer.from(reason, 'utf8').toString('utf8')).toBe(reason);
        }
      }),
      { numRuns: 500, seed: 12 },
    );
    // The exact case that crashed: 124–125 bytes after the old truncation.
    expect(Buffer.byteLength(closeReason('x'.repeat(200)))).toBe(123);
    expect(Buffer.byteLength(closeReason('é'.repeat(100)))).toBeLessThanOrEqual(123);
  });
});

describe('endpoint against strangers', () => {
  it('answers a bare hello without a token with an error and a close, and keeps serving (defect 1)', async () => {
    const ep = await endpoint();
    const bare = packValue({ type: 'hello' });
    expect(bare.byteLength).toBe(12);
    const client = await RawClient.connect(ep.url);
    client.sendBytes(bare);
    const error = await client.next('error');
    expect(Buffer.byteLength(error.message)).toBeGreaterThan(123); // the long zod message that crashed the process
    const closed = await client.closed;
    expect(closed.code).toBe(CLOSE.malformed);
    expect(Buffer.byteLength(closed.reason)).toBeLessThanOrEqual(123);
    expect(closed.reason.startsWith(error.message.slice(0, 40))).toBe(true);
    await servesAnEngine(ep);
  });

  it('a worker that receives a malformed welcome ends the session without crashing (defect 1, engine side)', async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    let sessions = 0;
    server.on('connection', (ws) => {
      sessions += 1;
      // A "welcome" with every field of the wrong type: the worker's error message is long.
      ws.send(packValue({ type: 'welcome', protocol: 7, sessionId: 7, engineId: 7, heartbeatMs: 'x'.repeat(300), maxMessageBytes: 'y' }));
    });
    const port = (server.address() as { port: number }).port;
    const result = runEngineWorker({
      url: `ws://127.0.0.1:${port}`,
      token: 't',
      engine: new HeadlessEngine(),
      capabilities: headlessCapabilities(),
      reconnect: { maxAttempts: 2, initialDelayMs: 10 },
    });
    await expect(result).rejects.toThrow(/cannot reach the orchestrator .* \(2 attempts; last: invalid "welcome" message/);
    expect(sessions).toBe(2);
  });

  it(`drops a stranger that sends more than ${PRE_AUTH_BYTES} bytes before hello (defect 5)`, async () => {
    const ep = await endpoint();
    const refused: string[] = [];
    ep.onRejected((r) => refused.push(r.reason));
    const ws = new WebSocket(ep.url);
    await new Promise((resolve) => ws.once('open', resolve));
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.on('error', () => {});
    // One 1 MiB message: before the fix the endpoint buffered up to 32 MiB per stranger.
    ws.send(new Uint8Array(1 << 20));
    expect(await closed).toBe(1006);
    expect(refused).toEqual([`more than ${PRE_AUTH_BYTES} bytes before "hello" was accepted`]);
    await vi.waitFor(() => expect(ep.unauthenticated).toBe(0), { timeout: 60_000 });
    await servesAnEngine(ep);
  });

  it('refuses a hello-sized message above the pre-auth limit as too large, even inside the byte allowance', async () => {
    const ep = await endpoint({ preAuthBytes: 4096 });
    const client = await RawClient.connect(ep.url);
    client.send({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      token: ep.token,
      engine: { kind: 'test', version: '0', description: 'd'.repeat(4000) },
      capabilities: headlessCapabilities(),
      maxMessageBytes: 1 << 20,
    });
    const closed = await client.closed;
    expect([1006, CLOSE.tooLarge]).toContain(closed.code);
    expect(ep.engines()).toHaveLength(0);
  });

  it(`keeps at most ${MAX_UNAUTHENTICATED} unauthenticated connections; more are closed at once (defect 5)`, async () => {
    const ep = await endpoint({ maxUnauthenticated: 8 });
    const refused: string[] = [];
    ep.onRejected((r) => refused.push(r.reason));
    const strangers = await Promise.all(Array.from({ length: 8 }, () => tcp(ep.port)));
    await vi.waitFor(() => expect(ep.unauthenticated).toBe(8), { timeout: 60_000 });
    const ninth = await tcp(ep.port);
    await closedTcp(ninth);
    expect(refused).toEqual(['too many unauthenticated connections (8)']);
    // The strangers leave; an engine gets in.
    for (const s of strangers) s.destroy();
    await vi.waitFor(() => expect(ep.unauthenticated).toBe(0), { timeout: 60_000 });
    await servesAnEngine(ep);
    // An authenticated engine does not count against the cap.
    const more = await Promise.all(Array.from({ length: 8 }, () => tcp(ep.port)));
    await vi.waitFor(() => expect(ep.unauthenticated).toBe(8), { timeout: 60_000 });
    for (const s of more) s.destroy();
  });

  it('closes a TCP connection that never upgrades (or never says hello) at the hello deadline', async () => {
    const ep = await endpoint({ helloTimeoutMs: 300 });
    const refused: string[] = [];
    ep.onRejected((r) => refused.push(r.reason));
    const silent = await tcp(ep.port);
    const halfHeaders = await tcp(ep.port);
    halfHeaders.write('GET / HTTP/1.1\r\nHost: x\r\n'); // a slow client: headers never finish
    await Promise.all([closedTcp(silent), closedTcp(halfHeaders)]);
    expect(refused).toEqual(['no "hello" within 300 ms', 'no "hello" within 300 ms']);
    const upgraded = await RawClient.connect(ep.url);
    const closed = await upgraded.closed;
    expect([closed.code, closed.reason]).toEqual([CLOSE.timeout, 'no "hello" within 300 ms']);
  });

  it('answers a plain HTTP request with 426 and survives garbage that is not HTTP', async () => {
    const ep = await endpoint();
    const response = await fetch(`http://127.0.0.1:${ep.port}/`);
    expect(response.status).toBe(426);
    const junk = await tcp(ep.port);
    junk.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0, 0, 0, 0, 0, 0]));
    await closedTcp(junk);
    // A ping is not a hello: strangers get no pongs.
    const client = await RawClient.connect(ep.url);
    client.sendBytes(encodeMessage({ type: 'ping', nonce: 1 }));
    expect((await client.closed).code).toBe(CLOSE.unexpected);
    await servesAnEngine(ep);
  });
});
