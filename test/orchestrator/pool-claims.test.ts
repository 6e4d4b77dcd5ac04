import { afterEach, describe, expect, it } from 'vitest';
import { EngineEndpoint } from '../../bridge/endpoint.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import type { RemoteEngine } from '../../bridge/remote-engine.js';
import { EnginePool, type PoolEvent, PoolJobError } from '../../orchestrator/pool/index.js';
import { Collected } from '../bridge/collect.js';
import { goldenLevel, job } from '../bridge/levels.js';
import { RawClient } from '../bridge/raw-client.js';
import { CLAIM } from './helpers/lies.js';

/**
 * "No engine decides alone" over a real WebSocket: a token holder that answers every
 * `load` with `error {fault: "level"}` and a text of its own. Its claims are checked on the pool's
 * referee (the headless engine in a worker thread, the default), the level fails only with the reason
 * sbeval's rules give (the claim kept as detail), and a claim the referee's run refutes discredits the
 * liar: it is retired and its connection closed.
 */
const LIE = CLAIM;

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A connected engine that claims every level it is given cannot run. */
async function liar(endpoint: EngineEndpoint): Promise<{ client: RawClient; engine: RemoteEngine; loads: string[] }> {
  const arrived = new Promise<RemoteEngine>((resolve) => endpoint.onEngine(resolve));
  const client = await RawClient.ready(endpoint.url, endpoint.token, { instance: 'liar' });
  const loads: string[] = [];
  client.ws.on('message', () => {
    for (let i = client.received.length - 1; i >= 0; i -= 1) {
      const m = client.received[i]!;
      if (m.type !== 'load') continue;
      client.received.splice(i, 1);
      loads.push(m.levelId);
      client.send({ type: 'error', runId: m.runId, levelId: m.levelId, phase: 'load', fault: 'level', message: LIE });
    }
  });
  return { client, engine: await arrived, loads };
}

describe('level faults claimed by an engine over a real socket', () => {
  it("are checked by the referee: a true claim fails the level with the rules' reason, a false one discredits the engine", async () => {
    const endpoint = await EngineEndpoint.listen();
    cleanup.push(() => endpoint.close());
    const { client, engine, loads } = await liar(endpoint);
    const events: PoolEvent[] = [];
    const pool = new EnginePool({ engines: [engine], maxAttempts: 1, onEvent: (e) => events.push(e) });
    cleanup.push(() => pool.close());

    // A level sbeval's rules cannot load either: the rules' reason, the liar's text only as detail.
    const broken = '<Level><GameObjects><Block type=';
    const local = (await new HeadlessEngine().run(job('broken', broken), new Collected().sink).catch((e: unknown) => e)) as Error;
    const failure = await pool.run({ job: job('broken', broken), sink: new Collected().sink }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PoolJobError);
    const error = failure as PoolJobError;
    expect(error.kind).toBe('level');
    expect(error.message).toBe(local.message);
    expect(error.message).toMatch(/^level XML cannot be loaded: /);
    expect(error.detail).toBe(`engine ${engine.id} said: ${LIE}`);
    expect(error.attempts[0]).toEqual({ attempt: 1, engineId: engine.id, failure: { kind: 'level-claim', reason: LIE } });
    expect(error.attempts[1]?.failure?.kind).toBe('level');
    expect(events.some((e) => e.type === 'engine-discredited')).toBe(false);

    // A level the rules run: the result is the referee's run, identical to the in-process engine's.
    const collected = new Collected();
    const result = await pool.run({ job: job('V1_L_1', goldenLevel('V1_L_1')), sink: collected.sink });
    const honest = new Collected();
    await new HeadlessEngine().run(job('V1_L_1', goldenLevel('V1_L_1')), honest.sink);
    expect(result.engineId).not.toBe(engine.id);
    expect(result.attempts.map((a) => a.failure?.kind)).toEqual(['level-claim', undefined]);
    expect(Buffer.from(collected.allFrames().states.buffer).equals(Buffer.from(honest.allFrames().states.buffer))).toBe(true);
    expect(Buffer.from(collected.captures[0]!.png).equals(Buffer.from(honest.captures[0]!.png))).toBe(true);
    expect(loads).toEqual(['broken', 'V1_L_1']);

    // The liar is discredited, retired, and told so: its connection closes.
    const discredited = events.find((e) => e.type === 'engine-discredited');
    expect(discredited).toMatchObject({
      engineId: engine.id,
      reason: expect.stringContaining(`said level V1_L_1 cannot run (${LIE}), but engine ${result.engineId} ran it`),
    });
    expect(events.some((e) => e.type === 'engine-retired' && e.engineId === engine.id)).toBe(true);
    expect((await client.closed).code).toBe(1000);
    expect(pool.size).toBe(0);
  }, 120_000);
});
