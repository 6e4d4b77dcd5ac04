import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { Packr } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { EngineEndpoint } from '../../bridge/endpoint.js';
import { FIELD_COUNT } from '../../bridge/frames.js';
import { decodeMessage, encodeMessage, PROTOCOL_VERSION, type ProtocolError } from '../../bridge/protocol.js';
import { type RemoteEngine, RemoteRunError } from '../../bridge/remote-engine.js';
import { evaluatorWindow, stepsToSimulate } from '../../bridge/window.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { Collected } from './collect.js';
import { goldenLevel, job } from './levels.js';
import { PLUGIN, type PluginBuild, sharedPluginBuild } from './mcs.js';
import { sampleMessages, toHex } from './samples.js';

/**
 * `npm run unity:check`: the Unity plugin compiled with mcs against the test double (editor and player
 * flavours, the protocol core without any Unity assembly), and its protocol core run under mono
 * against the TypeScript side over real sockets: every message type byte-identical both ways, the
 * same verdicts on malformed input, the same compatibility table, the same evaluator window, and a
 * full engine session with the real endpoint. The Unity half itself runs in unity-double.test.ts.
 */
let dir: string;
let build: PluginBuild;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sbeval-unity-check-'));
  build = await sharedPluginBuild();
}, 900_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function mono(args: string[], env: Record<string, string> = {}): ResultPromise<{ reject: false; all: true }> {
  return execa('mono', [build.checkExe, ...args], { reject: false, all: true, env, extendEnv: true }) as ResultPromise<{ reject: false; all: true }>;
}

describe('the plugin compiles with mcs against the test double', () => {
  it('builds every part (C# 7.2 subset, warnings as errors)', () => {
    for (const step of build.steps) expect(step.ok, `${step.name}:\n${step.output}`).toBe(true);
    expect(build.steps.map((s) => s.name)).toEqual([
      'double UnityEngine',
      'double UnityEditor',
      'double Science Birds',
      'protocol core (no UnityEngine)',
      'plugin, editor',
      'plugin editor scripts',
      'plugin, player',
      'mono test program',
      'stand-in editor',
      'double UnityEngine, broken player loop',
    ]);
  });

  it('uses the same evaluator window as bridge/window.ts (EvaluatorWindow.cs, the C# twin)', async () => {
    const durations = [500, 0, 1, 10, 40, 50, 120, 1000, 25_000];
    const result = await mono(['window', ...durations.map(String)]);
    expect(result.exitCode, result.all).toBe(0);
    const expected = durations.map((d) => {
      const w = evaluatorWindow(d);
      return [
        d,
        w.startStep,
        w.loopIterations,
        w.endStep,
        w.boundStep,
        w.rawStep,
        w.imageStep,
        stepsToSimulate({ windowSteps: d, capture: true }),
        stepsToSimulate({ windowSteps: d, capture: false }),
      ].join(' ');
    });
    expect(String(result.stdout).trim().split('\n')).toEqual(expected);
    expect(expected[0]).toBe('500 1 500 503 501 507 514 514 503');
  });

  it('keeps the protocol version in step with TypeScript and the plugin version with the sbeval package', () => {
    const protocolCs = readFileSync(join(PLUGIN, 'Runtime', 'Protocol.cs'), 'utf8');
    expect(/public const string Version = "([^"]+)";/.exec(protocolCs)?.[1]).toBe(PROTOCOL_VERSION);
    const hostCs = readFileSync(join(PLUGIN, 'Runtime', 'Unity', 'SbevalEngineHost.cs'), 'utf8');
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(/public const string PluginVersion = "([^"]+)";/.exec(hostCs)?.[1]).toBe(pkg.version);
  });
});

describe('cross-language: the C# protocol core under mono', () => {
  it('answers the compatibility table like checkCompatibility', async () => {
    const table = JSON.parse(readFileSync(new URL('./fixtures/compatibility.json', import.meta.url), 'utf8')) as {
      cases: Array<{ ours: string; theirs: string; expect: string }>;
    };
    const file = join(dir, 'compat.tsv');
    writeFileSync(file, `${table.cases.map((c) => `${c.ours}\t${c.theirs}`).join('\n')}\n`);
    const result = await mono(['compat', file]);
    expect(result.exitCode, result.all).toBe(0);
    expect(String(result.stdout).trim().split('\n')).toEqual(table.cases.map((c) => c.expect));
  });

  it("encodes every message type to the same bytes, and each side re-encodes the other's bytes unchanged", async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const port = (server.address() as { port: number }).port;
    const samples = sampleMessages();
    const plain = new Packr({ useRecords: false, variableMapSize: true });
    // Input both sides must refuse, with the same error code.
    const refused: Array<[string, Uint8Array]> = [
      ['not msgpack', new Uint8Array([0xc1])],
      ['trailing bytes', new Uint8Array([...encodeMessage({ type: 'pong', nonce: 1 }), 0x00])],
      ['truncated', encodeMessage({ type: 'bye', reason: 'truncated message' }).subarray(0, 8)],
      ['not a map', plain.pack([1, 2, 3])],
      ['no type', plain.pack({ nonce: 1 })],
      ['unknown type', plain.pack({ type: 'teleport', x: 1 })],
      ['negative nonce', plain.pack({ type: 'ping', nonce: -1 })],
      ['fractional nonce', plain.pack({ type: 'ping', nonce: 1.5 })],
      ['NaN number', plain.pack({ type: 'loaded', runId: 'r', dt: Number.NaN, bodies: [] })],
      [
        'bad body kind',
        plain.pack({ type: 'loaded', runId: 'r', dt: 0.02, bodies: [{ id: 0, kind: 'bird', type: 'BirdRed', counted: false, x: 0, y: 0, angle: 0 }] }),
      ],
      ['bad event kind', plain.pack({ type: 'events', runId: 'r', events: [{ kind: 'melted', step: 1, id: 0 }] })],
      [
        'frames shape',
        plain.pack({ type: 'frames', runId: 'r', firstStep: 0, stepCount: 2, bodyCount: 1, states: new Uint8Array(24), alive: new Uint8Array(2) }),
      ],
      ['missing field', plain.pack({ type: 'hello', protocol: '1.0.0', token: 't' })],
      ['bad phase', plain.pack({ type: 'error', phase: 'nope', fault: 'engine', message: 'm' })],
      ['empty run id', plain.pack({ type: 'cancel', runId: '' })],
    ];

    const conversation = new Promise<{ fromCs: Buffer[]; echoes: Buffer[]; verdicts: string[] }>((resolve, reject) => {
      server.once('connection', (ws: WebSocket) => {
        const fromCs: Buffer[] = [];
        const echoes: Buffer[] = [];
        const verdicts: string[] = [];
        const outgoing = [...samples.map((m) => encodeMessage(m)), ...refused.map(([, bytes]) => bytes), encodeMessage({ type: 'bye', reason: 'end-of-echo' })];
        ws.on('message', (data: Buffer) => {
          if (fromCs.length < samples.length) {
            fromCs.push(data);
            if (fromCs.length === samples.length) ws.send(outgoing[0] as Uint8Array);
            return;
          }
          const index = echoes.length + verdicts.length;
          if (index >= samples.length && index < samples.length + refused.length) {
            const reply = decodeMessage(data, { from: undefined });
            verdicts.push(reply.type === 'error' ? (reply.message.split(':')[0] ?? '') : `not an error: ${reply.type}`);
          } else {
            echoes.push(data);
          }
          const next = outgoing[index + 1];
          if (next) ws.send(next);
        });
        ws.on('close', () => resolve({ fromCs, echoes, verdicts }));
        ws.on('error', reject);
      });
    });
    const child = mono(['roundtrip', `ws://127.0.0.1:${port}`]);
    const [{ fromCs, echoes, verdicts }, result] = await Promise.all([conversation, child]);
    server.close();
    expect(result.exitCode, result.all).toBe(0);

    // C# → TS: the C# samples are byte-identical to the TypeScript encoding of the same messages,
    // and TypeScript decodes them to those messages.
    expect(fromCs).toHaveLength(samples.length);
    samples.forEach((m, i) => {
      const bytes = fromCs[i] as Buffer;
      expect(toHex(bytes), `C# ${m.type} sample #${i}`).toBe(toHex(encodeMessage(m)));
      const decoded = decodeMessage(bytes, { from: undefined });
      expect(decoded).toEqual(m);
      expect(toHex(encodeMessage(decoded))).toBe(toHex(bytes));
    });
    // TS → C# → TS: the C# side decodes and re-encodes every TypeScript message unchanged.
    expect(echoes).toHaveLength(samples.length + 1);
    samples.forEach((m, i) => expect(toHex(echoes[i] as Buffer), `echo of ${m.type} #${i}`).toBe(toHex(encodeMessage(m))));
    // Both sides refuse the same input with the same code.
    const tsVerdicts = refused.map(([, bytes]) => {
      try {
        decodeMessage(bytes, { from: undefined });
        return 'accepted';
      } catch (error) {
        return (error as ProtocolError).code;
      }
    });
    expect(tsVerdicts.every((v) => v !== 'accepted')).toBe(true);
    expect(Object.fromEntries(refused.map(([name], i) => [name, verdicts[i]]))).toEqual(Object.fromEntries(refused.map(([name], i) => [name, tsVerdicts[i]])));
  }, 60_000);
});

/** The synthetic level's states, computed independently of the C# code (formula in unity-plugin/Tests/ProtocolCheck.cs). */
function expectedSynthetic(xml: string, windowSteps: number, capture: boolean) {
  const level = parseLevelXml(xml);
  const bodies = level.objects.map((o, id) => ({
    id,
    kind: o.kind,
    type: o.type,
    material: o.kind === 'block' ? o.material : undefined,
    counted: o.kind !== 'platform',
    x: o.x,
    y: o.y,
    angle: (o.rotation * Math.PI) / 180,
  }));
  const steps = stepsToSimulate({ windowSteps, capture }) + 1;
  const states = new Float32Array(steps * bodies.length * FIELD_COUNT);
  const alive = new Uint8Array(steps * bodies.length);
  for (let s = 0; s < steps; s += 1) {
    bodies.forEach((b, i) => {
      const o = (s * bodies.length + i) * FIELD_COUNT;
      states.set([b.x + 0.001 * s * (i + 1), b.y - 0.0005 * s, b.angle + 0.01 * s, 0.05 * (i + 1), -0.025, 0.5], o);
      alive[s * bodies.length + i] = i === 0 && s >= 10 ? 0 : 1;
    });
  }
  const events = [
    { kind: 'contact', step: 1, a: 0, b: -1, relativeSpeed: 0.5 },
    { kind: 'damage', step: 10, id: 0, amount: 5.5, health: -0.5 },
    { kind: 'destroyed', step: 10, id: 0 },
    { kind: 'removed', step: 35, id: 0, reason: 'death' },
  ].filter((e) => e.step < steps);
  return { bodies, states, alive, steps, events };
}

const HEARTBEAT_TIMEOUT_MS = 5_000;

describe('cross-language: a full engine session (C# client ↔ TypeScript endpoint)', () => {
  it('serves levels, reports level errors, honours cancel, answers pings, and leaves on bye', async () => {
    // A heartbeat timeout a loaded machine cannot overrun by accident (a paused process reads the pong late).
    const endpoint = await EngineEndpoint.listen({ heartbeatMs: 250, heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS });
    const child = mono(['session', endpoint.url, 'mono-0'], { SBEVAL_TOKEN: endpoint.token });
    try {
      const [engine] = (await endpoint.waitForEngines(1, 30_000)) as [RemoteEngine];
      expect(engine.id).toBe('mono-0');
      expect(engine.identity).toMatchObject({ kind: 'unity', version: 'mono-test' });
      expect(engine.capabilities).toMatchObject({ frames: true, capture: true, captureRaw: true, cancel: true, damageFormulas: [] });

      // A full level: loaded, frames (uneven batches), events, capture with raw, done.
      const xml = goldenLevel('V1_L_1');
      const collected = new Collected();
      await engine.run(job('golden/V1_L_1', xml, { windowSteps: 40, framesPerBatch: 7, captureRaw: true }), collected.sink);
      const expected = expectedSynthetic(xml, 40, true);
      expect(collected.bodies).toEqual(expected.bodies);
      expect(collected.dt).toBe(0.02);
      expect(collected.batches.map((b) => b.stepCount)).toEqual([7, 7, 7, 7, 7, 7, 7, 6]); // steps 0 … 54: the 40-step window's image step is 54
      const frames = collected.allFrames();
      expect(frames.stepCount).toBe(expected.steps);
      expect(Array.from(frames.states)).toEqual(Array.from(expected.states));
      expect(Array.from(frames.alive)).toEqual(Array.from(expected.alive));
      expect(collected.eventList).toEqual(expected.events);
      expect(
        Buffer.from(collected.captures[0]?.png ?? [])
          .subarray(8)
          .toString(),
      ).toBe('sbeval synthetic golden/V1_L_1');
      expect(
        Buffer.from(collected.captures[0]?.raw ?? [])
          .subarray(8)
          .toString(),
      ).toBe('raw golden/V1_L_1');
      expect(collected.calls.at(-1)).toBe('capture');

      // The engine blames the level: not retried elsewhere.
      const error = await engine.run(job('bad', `${xml}<!-- sbeval-test:level-error -->`), new Collected().sink).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RemoteRunError);
      expect((error as RemoteRunError).levelError).toBe(true);
      // The level's reason is the engine's own text: it must not depend on which engine ran the level.
      expect((error as Error).message).toBe('synthetic level error: the level asked for it');
      expect([(error as RemoteRunError).remotePhase, (error as RemoteRunError).engineId]).toEqual(['load', engine.id]);

      // Cancel mid-level, then the engine serves the next level.
      const abort = new AbortController();
      const slow = new Collected();
      const cancelled = engine.run(
        job('slow', `${xml}<!-- sbeval-test:slow -->`, { windowSteps: 5000, capture: false, framesPerBatch: 10 }),
        {
          ...slow.sink,
          frames: (batch) => {
            slow.sink.frames(batch);
            abort.abort();
          },
        },
        abort.signal,
      );
      await expect(cancelled).rejects.toThrow(/cancelled/);
      const after = new Collected();
      await engine.run(job('after-cancel', xml, { windowSteps: 3, capture: false }), after.sink);
      expect(after.allFrames().stepCount).toBe(stepsToSimulate({ windowSteps: 3, capture: false }) + 1);

      // Idle longer than the heartbeat timeout: the C# side answers pings, so it is still connected.
      await new Promise((r) => setTimeout(r, HEARTBEAT_TIMEOUT_MS + 1_000));
      expect(engine.alive).toBe(true);
    } finally {
      await endpoint.close();
    }
    const result = await child;
    expect(result.exitCode, result.all).toBe(0);
    expect(result.all).toMatch(/plugin: orchestrator said bye: orchestrator finished/);
    expect(result.all).toMatch(/plugin: stopped \(Stopped\) after 1 connection\(s\)/);
  }, 90_000);

  it('stops (exit 1) instead of retrying when the token is wrong', async () => {
    const endpoint = await EngineEndpoint.listen();
    try {
      const result = await mono(['session', endpoint.url], { SBEVAL_TOKEN: 'wrong' });
      expect(result.exitCode).toBe(1);
      expect(result.all).toMatch(/orchestrator reported: wrong token/);
      expect(result.all).toMatch(/stopped \(Failed: refused: closed by the orchestrator \(code 4001: wrong token\)\) after 1 connection/);
    } finally {
      await endpoint.close();
    }
  }, 60_000);
});
