import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIELD_COUNT } from '../../bridge/frames.js';
import { readTrace, TraceRecorder } from '../../bridge/trace.js';
import { programToXml } from '../../levels/pipeline.js';
import { startViewer, type ViewerServer } from '../../viewer/server.js';
import { openTraceFile } from '../../viewer/trace-source.js';
import { pathologicalXml } from '../headless/pathological-levels.js';

/**
 * The viewer server against a hostile page and hostile files, over a real socket: DNS rebinding (a
 * foreign Host header), malformed URLs, a gzip bomb posing as a trace, a level over the simulation
 * budget, and a long simulation that must not stop the server from answering.
 */
const TRACE = fileURLToPath(new URL('../fixtures/corpus/reference/v1/levels/L/V1_L_2.sbtrace.gz', import.meta.url));

/** A GET with the exact path and Host given (fetch would normalise both). */
function get(server: ViewerServer, path: string, host = `127.0.0.1:${server.port}`): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const key = (team: string, letter: string, name: string) => encodeURIComponent(`${team}/${letter}/${name}`);

/** A level that takes a while to simulate (8 layers of SquareTiny over the whole grid) but stays within the budget. */
function slowLevel(): string {
  const calls: string[] = [];
  for (let layer = 0; layer < 8; layer += 1) for (let column = 0; column < 20; column += 1) calls.push(`drop_block('b11', ${column})`);
  return programToXml(calls.join('\n'));
}

/**
 * A trace of a real level whose frames (all zeros, so gzip shrinks them ~1000×) add up to more than
 * `bytes` once decompressed: a small file that would inflate past the loader's limit.
 */
async function gzipBomb(path: string, bytes: number): Promise<void> {
  const real = await readTrace(TRACE);
  const recorder = new TraceRecorder(path, { job: { levelId: 'bomb', xml: real.header.xml, settings: real.header.settings }, engine: real.header.engine, recordedAt: null });
  recorder.loaded(real.bodies, real.dt);
  const bodyCount = real.bodies.length;
  const stepsPerBatch = Math.ceil((1024 * 1024) / (bodyCount * (FIELD_COUNT * 4 + 1)));
  const states = new Float32Array(stepsPerBatch * bodyCount * FIELD_COUNT);
  const alive = new Uint8Array(stepsPerBatch * bodyCount).fill(1);
  let written = 0;
  for (let step = 0; written < bytes; step += stepsPerBatch) {
    recorder.frames({ firstStep: step, stepCount: stepsPerBatch, bodyCount, states, alive });
    written += states.byteLength + alive.byteLength;
  }
  await recorder.finish();
}

let root: string;
let server: ViewerServer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'sbeval-viewer-hostile-'));
  const levels = join(root, 'team', 'levels', 'A');
  mkdirSync(levels, { recursive: true });
  writeFileSync(join(levels, 'team_A_1.xml'), slowLevel());
  writeFileSync(join(levels, 'team_A_2.xml'), pathologicalXml('spot', 500));
  const traces = join(root, 'team', 'traces', 'A');
  mkdirSync(traces, { recursive: true });
  await gzipBomb(join(traces, 'team_A_3.sbtrace.gz'), 136 * 1024 * 1024);
  server = await startViewer({ source: { kind: 'competition', root, openTrace: openTraceFile } });
}, 120_000);

afterAll(async () => {
  await server.close();
});

describe('viewer server hardening', () => {
  it('answers only requests addressed to its own loopback address and port (DNS rebinding)', async () => {
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`]) expect((await get(server, '/api/session', host)).status, host).toBe(200);
    for (const host of [`evil.example:${server.port}`, `127.0.0.1.evil.example:${server.port}`, `127.0.0.1:${server.port + 1}`, 'localhost']) {
      const res = await get(server, '/api/session', host);
      expect(res.status, host).toBe(403);
      expect(res.body, host).not.toContain(root);
    }
    expect((await get(server, '/', `rebound.example:${server.port}`)).status).toBe(403);
  });

  it('gives 400 for a malformed URL, not 500', async () => {
    for (const path of ['/api/trial/%E0%A4%A/meta', '/api/trial/%zz/frames', '/api/trial/%/meta']) {
      const res = await get(server, path);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body).error, path).toMatch(/malformed/);
    }
  });

  it('refuses a trace that inflates past the limit with a clear error', async () => {
    const res = await get(server, `/api/trial/${key('team', 'A', 'team_A_3')}/meta`);
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body).error).toMatch(/team_A_3\.sbtrace\.gz: the trace holds more than 128 MiB once decompressed/);
    expect(res.body.length).toBeLessThan(2_000);
  }, 120_000);

  it('ends a level over the simulation budget with its reason, and keeps serving', async () => {
    const res = await get(server, `/api/trial/${key('team', 'A', 'team_A_2')}/meta`);
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body).error).toMatch(/^Simulation budget exceeded/);
    expect((await get(server, '/api/session')).status).toBe(200);
  }, 120_000);

  it('simulates a level off the request thread: other requests are answered while it runs', async () => {
    let metaDone = false;
    const meta = get(server, `/api/trial/${key('team', 'A', 'team_A_1')}/meta`).then((res) => {
      metaDone = true;
      return res;
    });
    // Let the simulation start (a simulation on the server's own thread would hold this timer until it ended).
    await new Promise((resolve) => setTimeout(resolve, 200));
    const session = await get(server, '/api/session');
    expect(session.status).toBe(200);
    expect(metaDone, 'the session request waited for the simulation').toBe(false);
    const done = await meta;
    expect(done.status).toBe(200);
    expect(JSON.parse(done.body).bodyCount).toBe(160);
  }, 180_000);
});
