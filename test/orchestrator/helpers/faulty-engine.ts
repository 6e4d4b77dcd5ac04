/**
 * A misbehaving engine process for the run tests: it dials the orchestrator's endpoint over a real
 * WebSocket and speaks the real protocol (bridge/worker.ts with the real headless engine inside), then
 * misbehaves on its N-th level:
 * - `die`: streams `loaded` and part of the frames, then the process exits (a crash mid-level);
 * - `stall`: streams part of the level, then goes silent for good while staying connected;
 * - `garbage`: answers its first `load` with bytes that are not a protocol message;
 * - `claim`: from its N-th level on, answers every `load` with `error {fault: "level"}` and a text of
 *   its own (`CLAIM`), whatever the level;
 * - `sly`: before its N-th level, streams the level as if nothing moved (the body table, frames that
 *   hold every body where it was loaded, the capture of that frozen state: a stream the orchestrator cannot tell from
 *   a level at rest), then claims as `claim` does;
 * - `ok`: a healthy engine.
 *
 * Usage: node --import tsx faulty-engine.ts <url> <token> <instance> <mode> <n>
 */
import WebSocket from 'ws';
import type { Engine, LevelJob, LevelSink } from '../../../bridge/engine.js';
import type { BodyInfo, FrameBatch, SimEvent } from '../../../bridge/frames.js';
import { HeadlessEngine } from '../../../bridge/headless/engine.js';
import { decodeMessage, encodeMessage, PROTOCOL_VERSION } from '../../../bridge/protocol.js';
import { headlessCapabilities, runEngineWorker } from '../../../bridge/worker.js';
import { CLAIM, runFrozen } from './lies.js';

const [url, token, instance, mode, nth] = process.argv.slice(2) as [string, string, string, string, string];
const misbehaveOn = Number(nth);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Call = { kind: 'loaded'; bodies: BodyInfo[]; dt: number } | { kind: 'frames'; batch: FrameBatch } | { kind: 'events'; events: SimEvent[] };

class FaultyEngine implements Engine {
  readonly id = instance;
  private readonly inner = new HeadlessEngine(instance);
  readonly identity = this.inner.identity;
  private count = 0;

  async run(job: LevelJob, sink: LevelSink, signal?: AbortSignal): Promise<void> {
    this.count += 1;
    if ((mode === 'claim' || mode === 'sly') && this.count >= misbehaveOn) throw Object.assign(new Error(CLAIM), { levelError: true });
    if (mode === 'sly') return runFrozen(this.inner, job, sink, signal);
    if (mode === 'ok' || this.count !== misbehaveOn) return this.inner.run(job, sink, signal);
    // Compute the real stream, then deliver only its beginning.
    const calls: Call[] = [];
    await this.inner.run(
      job,
      {
        loaded: (bodies, dt) => calls.push({ kind: 'loaded', bodies, dt }),
        frames: (batch) => calls.push({ kind: 'frames', batch }),
        events: (events) => calls.push({ kind: 'events', events }),
        capture: () => {},
      },
      signal,
    );
    let frames = 0;
    for (const call of calls) {
      if (call.kind === 'loaded') sink.loaded(call.bodies, call.dt);
      else if (call.kind === 'events') sink.events(call.events);
      else {
        sink.frames(call.batch);
        frames += 1;
      }
      if (frames === 2) break;
    }
    await sleep(200); // let the partial stream reach the orchestrator
    if (mode === 'die') process.exit(3);
    // stall: silent for good (heartbeats continue: the connection looks alive).
    await new Promise(() => {});
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

async function garbage(): Promise<void> {
  const ws = new WebSocket(url);
  ws.on('open', () => {
    ws.send(
      encodeMessage({
        type: 'hello',
        protocol: PROTOCOL_VERSION,
        token,
        instance,
        engine: new HeadlessEngine(instance).identity,
        capabilities: headlessCapabilities(),
        maxMessageBytes: 1 << 20,
      }),
    );
  });
  ws.on('message', (data: Buffer) => {
    const message = decodeMessage(new Uint8Array(data), { from: 'orchestrator' });
    if (message.type === 'load') ws.send(Buffer.from('\xc1 this is not a protocol message \xff\xff', 'latin1'));
  });
  ws.on('close', () => process.exit(0));
  ws.on('error', () => process.exit(0));
}

if (mode === 'garbage') await garbage();
else await runEngineWorker({ url, token, instance, engine: new FaultyEngine(), capabilities: headlessCapabilities(), reconnect: { maxAttempts: 1 } });
