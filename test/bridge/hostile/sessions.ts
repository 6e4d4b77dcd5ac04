import { randomBytes as cryptoRandomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { packValue } from '../../../bridge/codec.js';
import type { LevelJob, LevelSink } from '../../../bridge/engine.js';
import { type BodyInfo, FIELD_COUNT, type FrameBatch, type SimEvent } from '../../../bridge/frames.js';
import { HeadlessEngine } from '../../../bridge/headless/engine.js';
import { decodeMessage, encodeMessage, type Message, PROTOCOL_VERSION } from '../../../bridge/protocol.js';
import { headlessCapabilities } from '../../../bridge/worker.js';
import { crc32 } from '../../../core/crc32.js';

/**
 * Hostile sessions against a live bridge endpoint (loopback only): every kind a stranger or a lying
 * token holder can throw at it, each with the outcome the endpoint must give. A session is one
 * connection; `runSession` resolves with what the endpoint did (never rejects, never hangs: every
 * session has a deadline of its own, and reaching it is an outcome the suite counts as a failure).
 */
export type SessionKind =
  // before authentication
  | 'bare-hello' // the 12-byte {type: "hello"} that crashed the run (defect 1)
  | 'random-bytes'
  | 'random-map' // valid msgpack maps with random types and fields
  | 'text-frame'
  | 'wrong-token'
  | 'incompatible'
  | 'ping-first'
  | 'oversized-1mib' // more than the pre-auth allowance (defect 5)
  | 'oversized-32mib' // the 32 MiB before hello (defect 5)
  | 'not-http'
  | 'half-open-tcp' // connects, says nothing
  | 'slow-headers' // HTTP headers that never finish
  | 'silent-websocket' // upgrades, never says hello
  | 'partial-frame' // upgrades, sends half a frame header, hangs up
  | 'partial-frame-held' // upgrades, sends half a frame header, goes quiet until the hello deadline
  | 'unmasked-frame' // a client frame without a mask (RFC 6455 violation)
  | 'bad-opcode'
  | 'reset' // upgrades and resets the connection mid-message
  // after authentication (token holders)
  | 'auth-garbage'
  | 'auth-second-hello'
  // lying engines: take a level, answer with something that is not its result
  | 'lie-other-level'
  | 'lie-frozen'
  | 'lie-one-body'
  | 'lie-png-junk'
  | 'lie-short'
  | 'lie-summary'
  | 'lie-level-id'
  | 'lie-silent' // authenticated, takes a level, goes half-open
  // simulate honestly, lie about the image: the first capture for every level, or each padded with 4 MiB
  | 'lie-swap-capture'
  | 'lie-bloat-capture'
  // a name and error texts full of terminal control sequences (clear screen, title, a fake verdict line)
  | 'terminal-escape';

export const PRE_AUTH_KINDS: readonly SessionKind[] = [
  'bare-hello',
  'random-bytes',
  'random-map',
  'text-frame',
  'wrong-token',
  'incompatible',
  'ping-first',
  'oversized-1mib',
  'not-http',
  'half-open-tcp',
  'partial-frame',
  'unmasked-frame',
  'bad-opcode',
  'reset',
];
export const AUTH_KINDS: readonly SessionKind[] = ['auth-garbage', 'auth-second-hello'];
export const LIE_KINDS: readonly SessionKind[] = [
  'lie-other-level',
  'lie-frozen',
  'lie-one-body',
  'lie-png-junk',
  'lie-short',
  'lie-summary',
  'lie-level-id',
  'lie-silent',
];
/**
 * Engines that answer every level and so would outlast the flood's budget of refusals: each runs
 * alone against a run of its own (hostile-captures.test.ts, hostile-terminal.test.ts).
 */
export const SOLO_KINDS: readonly SessionKind[] = ['lie-swap-capture', 'lie-bloat-capture', 'terminal-escape'];
/** The kinds that answer every level they get (the others lie once and leave the rest unanswered). */
const PERSISTENT_KINDS: readonly SessionKind[] = ['lie-frozen', 'lie-swap-capture', 'lie-bloat-capture', 'terminal-escape'];

/**
 * What the terminal-escape engine calls itself and says when it fails: erase the screen (ECMA-48 ED),
 * set the window title (xterm OSC 0), hide what follows (SGR 8), and a line of its own.
 */
export const ESCAPE_NAME = '\u001b[2J\u001b]0;sbeval: all verified\u0007esc';
export const FAKE_VERDICT = 'ALL LEVELS VERIFIED OK';
export const ESCAPE_ERROR = `\u001b[2J\u001b[H\u001b]0;owned\u0007\r\n${FAKE_VERDICT}\n\u001b[8m`;
/** The ancillary chunk the bloating engine adds to every capture. */
export const BLOAT_BYTES = 4 * 1024 * 1024;
/** Kinds that hold a connection until the endpoint's hello deadline (run a bounded number of them). */
export const SLOW_KINDS: readonly SessionKind[] = ['slow-headers', 'silent-websocket', 'partial-frame-held'];

/** What the endpoint did to the session. */
export type Outcome =
  | `close ${number}` // a WebSocket close frame with this code
  | 'dropped' // the connection ended without a close frame
  | 'capped' // closed before the upgrade: too many unauthenticated connections at that moment
  | `http ${number}`
  | 'no-level' // a lying engine that never got a level (the run had none left for it)
  | 'client-deadline'; // the endpoint did nothing within the session's deadline: a failure

export interface SessionResult {
  kind: SessionKind;
  outcome: Outcome;
  /** Close reason length in UTF-8 bytes (must be ≤ 123). */
  reasonBytes: number;
  /** The frozen liar: whether it told its lie (it works honestly until it holds ALOFT_LEVEL). */
  lied?: boolean;
}

export interface Target {
  port: number;
  token: string;
}

export type Rng = () => number;

const DEADLINE_MS = 30_000;
let BIG: Buffer | undefined;
/** One shared 32 MiB buffer for the oversized sessions (the client side must not be the memory problem). */
function big(): Buffer {
  BIG ??= Buffer.alloc(32 * 1024 * 1024, 0x41);
  return BIG;
}

function helloFor(token: string, overrides: Record<string, unknown> = {}): Uint8Array {
  return encodeMessage({
    type: 'hello',
    protocol: PROTOCOL_VERSION,
    token,
    engine: { kind: 'hostile', version: '0', description: 'hostile suite' },
    capabilities: headlessCapabilities(),
    maxMessageBytes: 1 << 26,
    ...overrides,
  } as Message);
}

function randomBytes(rng: Rng, n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i += 1) out[i] = Math.floor(rng() * 256);
  return out;
}

function randomMap(rng: Rng): Uint8Array {
  const types = ['hello', 'welcome', 'load', 'loaded', 'frames', 'events', 'capture', 'done', 'error', 'cancel', 'pong', 'bye', 'nonsense', ''];
  const value: Record<string, unknown> = { type: types[Math.floor(rng() * types.length)] };
  const fields = ['runId', 'token', 'protocol', 'bodies', 'states', 'nonce', 'reason', 'engine', 'x'];
  for (let i = 0; i < Math.floor(rng() * 5); i += 1) {
    const r = rng();
    value[fields[Math.floor(rng() * fields.length)] as string] =
      r < 0.3 ? Math.floor(r * 1e9) : r < 0.6 ? 'é'.repeat(Math.floor(rng() * 200)) : r < 0.8 ? [1, 'x', null] : { nested: true };
  }
  return packValue(value);
}

/** A WebSocket session: resolves with the close code the endpoint sent (or how the connection ended). */
function wsSession(target: Target, act: (ws: WebSocket) => void, deadlineMs = DEADLINE_MS): Promise<{ outcome: Outcome; reasonBytes: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${target.port}`, { handshakeTimeout: DEADLINE_MS });
    let settled = false;
    const done = (outcome: Outcome, reasonBytes = 0) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        ws.terminate();
      } catch {
        // gone
      }
      resolve({ outcome, reasonBytes });
    };
    const timer = setTimeout(() => done('client-deadline'), deadlineMs);
    let opened = false;
    ws.on('open', () => {
      opened = true;
      try {
        act(ws);
      } catch {
        // sending into a closed socket: the close event tells the outcome
      }
    });
    ws.on('unexpected-response', (_req, res) => done(`http ${res.statusCode ?? 0}`));
    ws.on('error', () => {
      if (!opened) done('capped');
    });
    ws.on('close', (code, reason) => done(code === 1006 ? 'dropped' : `close ${code}`, reason.byteLength));
  });
}

/** A raw TCP session: resolves when the endpoint closes the connection. */
function tcpSession(target: Target, act: (socket: Socket) => void): Promise<{ outcome: Outcome; reasonBytes: number; received: Buffer }> {
  return new Promise((resolve) => {
    const socket = connect(target.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const done = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ outcome, reasonBytes: 0, received: Buffer.concat(chunks) });
    };
    const timer = setTimeout(() => done('client-deadline'), DEADLINE_MS);
    socket.on('connect', () => act(socket));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => done('dropped'));
  });
}

/** Upgrades a raw TCP connection by hand, then hands the socket over (for frames `ws` would never send). */
function rawUpgrade(target: Target, afterUpgrade: (socket: Socket) => void): Promise<{ outcome: Outcome; reasonBytes: number }> {
  let upgraded = false;
  return tcpSession(target, (socket) => {
    socket.write(
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${cryptoRandomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    socket.on('data', () => {
      if (upgraded) return;
      upgraded = true;
      afterUpgrade(socket);
    });
  }).then(({ outcome, received }) => {
    if (!received.toString('latin1').startsWith('HTTP/1.1 101'))
      return {
        outcome: received.length === 0 ? ('capped' as Outcome) : (`http ${Number(received.toString('latin1').slice(9, 12))}` as Outcome),
        reasonBytes: 0,
      };
    // The server's frames (unmasked): find its close frame, if it sent one.
    let at = received.indexOf('\r\n\r\n') + 4;
    while (at + 2 <= received.length) {
      const opcode = (received[at] as number) & 0x0f;
      let length = (received[at + 1] as number) & 0x7f;
      let head = 2;
      if (length === 126) {
        if (at + 4 > received.length) break;
        length = received.readUInt16BE(at + 2);
        head = 4;
      } else if (length === 127) {
        if (at + 10 > received.length) break;
        length = Number(received.readBigUInt64BE(at + 2));
        head = 10;
      }
      if (opcode === 0x8 && length >= 2 && at + head + 2 <= received.length) {
        return { outcome: `close ${received.readUInt16BE(at + head)}` as Outcome, reasonBytes: length - 2 };
      }
      at += head + length;
    }
    return { outcome, reasonBytes: 0 };
  });
}

/** One client frame, masked (as RFC 6455 requires of clients) unless `unmasked`. */
function frame(opcode: number, payload: Buffer, options: { unmasked?: boolean; fin?: boolean } = {}): Buffer {
  const head = [((options.fin ?? true) ? 0x80 : 0) | opcode];
  const mask = options.unmasked ? 0 : 0x80;
  if (payload.length < 126) head.push(mask | payload.length);
  else {
    head.push(mask | 126, payload.length >> 8, payload.length & 0xff);
  }
  if (options.unmasked) return Buffer.concat([Buffer.from(head), payload]);
  const key = cryptoRandomBytes(4);
  const masked = Buffer.from(payload.map((b, i) => b ^ (key[i % 4] as number)));
  return Buffer.concat([Buffer.from(head), key, masked]);
}

/**
 * A binary frame of `payload` written without copying it: a client frame must be masked, and a mask
 * key of zero leaves the bytes as they are (the `ws` client would mask a copy — 32 MiB of work per
 * session in the test process, which would make the suite measure itself).
 */
function writeZeroMasked(socket: Socket, payload: Buffer): void {
  const head = Buffer.alloc(14);
  head[0] = 0x82;
  head[1] = 0x80 | 127;
  head.writeBigUInt64BE(BigInt(payload.length), 2);
  // bytes 10–13: the mask key, zero
  socket.write(head);
  socket.write(payload);
}

// --- lying engines ----------------------------------------------------------------------------------

interface Honest {
  bodies: BodyInfo[];
  dt: number;
  batches: FrameBatch[];
  events: SimEvent[];
  png: Uint8Array | undefined;
}

async function honestRun(job: LevelJob): Promise<Honest> {
  const out: Honest = { bodies: [], dt: 0.02, batches: [], events: [], png: undefined };
  const sink: LevelSink = {
    loaded: (b, dt) => {
      out.bodies = b;
      out.dt = dt;
    },
    frames: (b) => out.batches.push({ ...b, states: b.states.slice(), alive: b.alive.slice() }),
    events: (e) => out.events.push(...e),
    capture: (c) => (out.png = c.png),
  };
  await new HeadlessEngine().run(job, sink);
  return out;
}

/**
 * A level with a block in the air (a RectSmall 2 units above the ground's top at y = −3.5, nothing
 * below or beside it) beside a block on the ground: gravity must move the high block at step 1, so
 * frozen frames for it are a provable lie (bridge/expected-run.ts `fallingBody`). The hostile run's
 * root holds it as the level of team `Aloft` (hostile.test.ts), the only level the frozen liar lies
 * about: frozen frames for a level at rest can be the honest answer, so a sound check cannot refuse
 * them elsewhere.
 */
export const ALOFT_LEVEL = `<?xml version="1.0" encoding="utf-16"?>
<Level width="2">
  <Camera x="0" y="-1" minWidth="20" maxWidth="25" />
  <Birds>
    <Bird type="BirdRed" />
  </Birds>
  <Slingshot x="-12.0" y="-2.5" />
  <GameObjects>
    <Block type="SquareSmall" material="wood" x="1" y="-3.285" rotation="0" />
    <Block type="RectSmall" material="stone" x="3" y="-1.39" rotation="0" />
  </GameObjects>
</Level>
`;

/** Another level's result, to pass off as this one's. */
const OTHER_LEVEL = `<?xml version="1.0" encoding="utf-16"?>
<Level width="3">
  <GameObjects>
    <Block type="RectFat" material="stone" x="2" y="-3.1" rotation="0" />
    <Block type="SquareSmall" material="ice" x="4" y="-3.2" rotation="0" />
  </GameObjects>
</Level>`;

function lieSession(target: Target, kind: SessionKind): Promise<{ outcome: Outcome; reasonBytes: number; lied?: boolean }> {
  let gotLevel = false;
  // The frozen liar works honestly until it is given the level whose frozen frames are a provable
  // lie (ALOFT_LEVEL): only liars and it take levels during the flood, so that level reaches it.
  const patient = kind === 'lie-frozen';
  const persistent = PERSISTENT_KINDS.includes(kind);
  let lied = false;
  const memory: LieMemory = {};
  return wsSession(
    target,
    (ws) => {
      ws.binaryType = 'nodebuffer';
      // No level for this liar within a few seconds (the run is busy elsewhere or done): leave.
      const idle = setTimeout(() => {
        if (!gotLevel) ws.close(1000, 'no level');
      }, 4000);
      ws.once('close', () => clearTimeout(idle));
      ws.send(
        helloFor(target.token, {
          instance:
            kind === 'terminal-escape' ? `${ESCAPE_NAME}-${cryptoRandomBytes(3).toString('hex')}` : `liar-${kind}-${cryptoRandomBytes(3).toString('hex')}`,
        }),
      );
      ws.on('message', (data: Buffer) => {
        let message: Message;
        try {
          message = decodeMessage(new Uint8Array(data), { from: 'orchestrator' });
        } catch {
          return;
        }
        if (message.type === 'ping' && kind !== 'lie-silent') ws.send(encodeMessage({ type: 'pong', nonce: message.nonce }));
        if (message.type === 'bye') ws.close(1000, 'bye');
        if (message.type !== 'load' || (gotLevel && !persistent)) return;
        gotLevel = true;
        const job = { levelId: message.levelId, xml: message.xml, settings: message.settings };
        if (patient && job.xml !== ALOFT_LEVEL) {
          void lie(ws, 'honest', message.runId, job);
          return;
        }
        lied = true;
        void lie(ws, kind, message.runId, job, memory);
      });
      // The frozen liar simulates the levels before Aloft's honestly: allow for that work on a loaded machine.
    },
    persistent ? 10 * DEADLINE_MS : DEADLINE_MS,
  ).then((result) => ({ ...(gotLevel ? result : { outcome: 'no-level' as Outcome, reasonBytes: result.reasonBytes }), ...(patient ? { lied } : {}) }));
}

/** What a liar remembers between levels (the capture swapper: its first capture). */
interface LieMemory {
  firstCapture?: Uint8Array;
}

/** `png` with a private ancillary chunk of `bytes` bytes before its IEND (a valid PNG that decodes as before). */
export function bloated(png: Uint8Array, bytes: number): Uint8Array {
  const iend = png.length - 12;
  const chunk = Buffer.alloc(12 + bytes, 0x41);
  chunk.writeUInt32BE(bytes, 0);
  chunk.write('tEXt', 4, 'latin1');
  chunk.writeUInt32BE(crc32(chunk, 4, 8 + bytes), 8 + bytes);
  return Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]);
}

/** Answers `job` with the lie of `kind`, or truthfully for 'honest'. */
async function lie(ws: WebSocket, kind: SessionKind | 'honest', runId: string, job: LevelJob, memory: LieMemory = {}): Promise<void> {
  if (kind === 'lie-silent') return; // holds the level, answers nothing (not even pings)
  const send = (m: Message) => {
    if (ws.readyState === ws.OPEN) ws.send(encodeMessage(m));
  };
  if (kind === 'terminal-escape') {
    send({ type: 'error', runId, levelId: job.levelId, phase: 'simulate', fault: 'engine', message: ESCAPE_ERROR });
    return;
  }
  if (kind === 'lie-level-id') {
    send({ type: 'error', runId, levelId: `${job.levelId}-another`, phase: 'load', fault: 'level', message: 'this level cannot be loaded' });
    return;
  }
  const honest = await honestRun(kind === 'lie-other-level' ? { ...job, xml: OTHER_LEVEL } : job);
  let bodies = honest.bodies;
  let batches = honest.batches;
  let png = honest.png;
  if (kind === 'lie-one-body') {
    bodies = bodies.slice(0, 1);
    batches = batches.map((b) => {
      const states = new Float32Array(b.stepCount * FIELD_COUNT);
      const alive = new Uint8Array(b.stepCount);
      for (let s = 0; s < b.stepCount; s += 1) {
        states.set(b.states.subarray(s * b.bodyCount * FIELD_COUNT, s * b.bodyCount * FIELD_COUNT + FIELD_COUNT), s * FIELD_COUNT);
        alive[s] = b.alive[s * b.bodyCount] as number;
      }
      return { ...b, bodyCount: 1, states, alive };
    });
  }
  if (kind === 'lie-frozen') {
    const row = (batches[0] as FrameBatch).states.slice(0, bodies.length * FIELD_COUNT);
    batches = batches.map((b) => {
      const states = new Float32Array(b.states.length);
      for (let s = 0; s < b.stepCount; s += 1) states.set(row, s * row.length);
      return { ...b, states, alive: new Uint8Array(b.alive.length).fill(1) };
    });
  }
  if (kind === 'lie-short') batches = batches.filter((b) => b.firstStep < 50);
  if (kind === 'lie-png-junk' && png) png = Uint8Array.from([...png.subarray(0, 33), ...Buffer.from('not image data '.repeat(40))]);
  if (kind === 'lie-swap-capture' && png) png = memory.firstCapture ??= png;
  if (kind === 'lie-bloat-capture' && png) png = bloated(png, BLOAT_BYTES);
  const events =
    kind === 'lie-one-body'
      ? honest.events.filter((e) => !('id' in e) || e.id === 0).filter((e) => e.kind !== 'contact' || (e.a <= 0 && e.b <= 0))
      : honest.events;
  send({ type: 'loaded', runId, dt: honest.dt, bodies });
  send({
    type: 'events',
    runId,
    events: events.filter((e) => e.step <= (batches.at(-1) ? (batches.at(-1) as FrameBatch).firstStep + (batches.at(-1) as FrameBatch).stepCount - 1 : 0)),
  });
  for (const batch of batches) send({ type: 'frames', runId, batch });
  if (png && job.settings.capture) send({ type: 'capture', runId, png });
  const last = batches.at(-1) as FrameBatch;
  const steps = last.firstStep + last.stepCount - 1;
  const eventCount = events.filter((e) => e.step <= steps).length;
  send({ type: 'done', runId, summary: { steps: kind === 'lie-summary' ? steps + 7 : steps, bodies: bodies.length, events: eventCount, elapsedMs: 1 } });
}

// --- the sessions -----------------------------------------------------------------------------------

export async function runSession(target: Target, kind: SessionKind, rng: Rng): Promise<SessionResult> {
  const r = await session(target, kind, rng);
  return { kind, ...r };
}

function session(target: Target, kind: SessionKind, rng: Rng): Promise<{ outcome: Outcome; reasonBytes: number; lied?: boolean }> {
  switch (kind) {
    case 'bare-hello':
      return wsSession(target, (ws) => ws.send(packValue({ type: 'hello' })));
    case 'random-bytes':
      return wsSession(target, (ws) => ws.send(randomBytes(rng, 1 + Math.floor(rng() * 4096))));
    case 'random-map':
      return wsSession(target, (ws) => ws.send(randomMap(rng)));
    case 'text-frame':
      return wsSession(target, (ws) => ws.send('{"type":"hello","token":"guess"}'));
    case 'wrong-token':
      return wsSession(target, (ws) => ws.send(helloFor(`${target.token.slice(0, -1)}x`)));
    case 'incompatible':
      return wsSession(target, (ws) => ws.send(helloFor(target.token, { protocol: `${2 + Math.floor(rng() * 5)}.0.0` })));
    case 'ping-first':
      return wsSession(target, (ws) => ws.send(encodeMessage({ type: 'ping', nonce: 1 })));
    case 'oversized-1mib':
      return rawUpgrade(target, (s) => writeZeroMasked(s, big().subarray(0, 1 << 20)));
    case 'oversized-32mib':
      return rawUpgrade(target, (s) => writeZeroMasked(s, big()));
    case 'not-http':
      return tcpSession(target, (s) => s.write(randomBytes(rng, 64).fill(0x16, 0, 1)));
    case 'half-open-tcp':
      // Connects and vanishes without a FIN after a moment (a peer that died).
      return tcpSession(target, (s) => setTimeout(() => s.resetAndDestroy(), Math.floor(rng() * 50)));
    case 'slow-headers':
      return tcpSession(target, (s) => s.write('GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n'));
    case 'silent-websocket':
      return wsSession(target, () => {});
    case 'partial-frame':
      return rawUpgrade(target, (s) => {
        s.write(Buffer.from([0x82, 0xfe, 0x01]));
        setTimeout(() => s.end(), Math.floor(rng() * 30));
      });
    case 'partial-frame-held':
      return rawUpgrade(target, (s) => s.write(Buffer.from([0x82, 0xfe, 0x01])));
    case 'unmasked-frame':
      return rawUpgrade(target, (s) => s.write(frame(0x2, Buffer.from(packValue({ type: 'hello' })), { unmasked: true })));
    case 'bad-opcode':
      return rawUpgrade(target, (s) => s.write(frame(0x3 + Math.floor(rng() * 5), randomBytes(rng, 10))));
    case 'reset':
      return rawUpgrade(target, (s) => {
        s.write(frame(0x2, randomBytes(rng, 200)).subarray(0, 40));
        s.resetAndDestroy();
      });
    case 'auth-garbage':
      return wsSession(target, (ws) => {
        ws.send(helloFor(target.token, { instance: `garbage-${cryptoRandomBytes(3).toString('hex')}` }));
        ws.once('message', () => ws.send(randomBytes(rng, 1 + Math.floor(rng() * 2048)).fill(0xc1, 0, 1)));
      });
    case 'auth-second-hello':
      return wsSession(target, (ws) => {
        ws.send(helloFor(target.token, { instance: `twice-${cryptoRandomBytes(3).toString('hex')}` }));
        ws.once('message', () => ws.send(helloFor(target.token)));
      });
    default:
      return lieSession(target, kind);
  }
}

/** The outcomes each kind may end with (besides `capped`, possible for any pre-auth kind under load). */
export const EXPECTED: Readonly<Record<SessionKind, readonly Outcome[]>> = {
  'bare-hello': ['close 4003'],
  'random-bytes': ['close 4003', 'close 4004', 'close 4005'],
  'random-map': ['close 4003', 'close 4004', 'close 4005'],
  'text-frame': ['close 4003'],
  'wrong-token': ['close 4001'],
  incompatible: ['close 4002'],
  'ping-first': ['close 4005'],
  'oversized-1mib': ['dropped'],
  'oversized-32mib': ['dropped'],
  'not-http': ['dropped'],
  'half-open-tcp': ['dropped'],
  'slow-headers': ['dropped'],
  'silent-websocket': ['close 4006'],
  'partial-frame': ['dropped', 'close 1002', 'close 1006'],
  'partial-frame-held': ['close 4006'],
  'unmasked-frame': ['close 1002', 'dropped'],
  'bad-opcode': ['close 1002', 'dropped'],
  reset: ['dropped'],
  'auth-garbage': ['close 4003'],
  'auth-second-hello': ['close 4005'],
  // A lying engine is cut off: a protocol error closes it with its code, a stream the pool refuses
  // retires it (bye, 1000), a silent one is dropped by the stall watchdog's retirement.
  'lie-other-level': ['close 1000', 'no-level'],
  'lie-frozen': ['close 1000', 'no-level'],
  'lie-one-body': ['close 1000', 'no-level'],
  'lie-png-junk': ['close 1000', 'no-level'],
  'lie-short': ['close 1000', 'no-level'],
  'lie-summary': ['close 4003', 'no-level'],
  'lie-level-id': ['close 4005', 'no-level'],
  'lie-silent': ['close 1000', 'dropped', 'no-level'],
  // Its second level's capture is its first level's (or one of the same picture: then no lie is seen).
  'lie-swap-capture': ['close 1000', 'dropped', 'no-level'],
  // Its captures are stripped of the chunk, never refused: it is retired only when the run ends.
  'lie-bloat-capture': ['close 1000', 'dropped', 'no-level'],
  // An engine whose every run fails is retired (faults in a row, or a stall on the level it ignores).
  'terminal-escape': ['close 1000', 'dropped', 'no-level'],
};
