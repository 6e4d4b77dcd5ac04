import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WorkerEngine } from '../../bridge/headless/worker-engine.js';
import { encodeTraceHeader, encodeTraceRecord, MAX_TRACE_BYTES, readTrace } from '../../bridge/trace.js';
import { programToXml } from '../../levels/pipeline.js';
import { createInvites } from '../../llm/survey/invites.js';
import { type SurveyServer, startSurveyServer } from '../../llm/survey/server.js';
import { competitionSource } from '../../orchestrator/layout/trial-listing.js';
import { startViewer, type ViewerServer } from '../../viewer/server.js';
import { pathologicalXml } from '../headless/pathological-levels.js';

/**
 * The viewer server (and the survey server) against a hostile page and hostile files, over a real
 * socket: DNS rebinding (a foreign Host header), malformed URLs, a gzip bomb posing as a trace, a level
 * over the simulation budget, and a simulation that must not stop the server from answering.
 */
const TRACE = fileURLToPath(new URL('../fixtures/corpus/reference/v1/levels/L/V1_L_2.sbtrace.gz', import.meta.url));

/** A GET with the exact path and Host given (fetch would normalise both). */
function get(
  server: { port: number },
  path: string,
  host = `127.0.0.1:${server.port}`,
  method = 'GET',
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method, headers: { host, ...headers } }, (res) => {
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

/** A level that stays awake for the whole window (8 layers of SquareTiny over the whole grid): well within the budget, and hundreds of ms to simulate. */
function slowLevel(): string {
  const calls: string[] = [];
  for (let layer = 0; layer < 8; layer += 1) for (let column = 0; column < 20; column += 1) calls.push(`drop_block('b11', ${column})`);
  return programToXml(calls.join('\n'));
}

/**
 * A real trace's header followed by frame records of zeros adding up to `bytes` once decompressed:
 * a small file that inflates past the loader's limit (a gzip bomb). Gzip members may be concatenated,
 * so the 4 MiB of zeros in each record are compressed once and repeated: the file takes no time to make.
 */
async function gzipBomb(path: string, bytes: number): Promise<number> {
  const real = await readTrace(TRACE);
  const header = { ...real.header, levelId: 'bomb', runId: 'bomb#1', dt: real.dt, bodies: real.bodies };
  // Captures of 4 MiB of zeros, one after another: frames could not carry the bomb (the header's window
  // bounds them, bridge/trace.ts), so the decompressed size limit is what must stop it.
  const zeroBytes = Buffer.alloc(4 * 1024 * 1024);
  const zeros = gzipSync(zeroBytes, { level: 9 });
  const parts: Uint8Array[] = [gzipSync(encodeTraceHeader(header))];
  for (let written = 0; written < bytes; written += zeroBytes.byteLength) {
    const record = Buffer.from(encodeTraceRecord({ type: 'capture', runId: header.runId, png: zeroBytes }));
    const start = record.indexOf(Buffer.alloc(64));
    expect(record.subarray(start, start + zeroBytes.byteLength).equals(zeroBytes)).toBe(true);
    parts.push(gzipSync(record.subarray(0, start)), zeros, gzipSync(record.subarray(start + zeroBytes.byteLength)));
  }
  const file = Buffer.concat(parts);
  writeFileSync(path, file);
  return file.length;
}

let root: string;
let server: ViewerServer;
let bombSize: number;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'sbeval-viewer-hostile-'));
  const levels = join(root, 'team', 'levels', 'A');
  mkdirSync(levels, { recursive: true });
  writeFileSync(join(levels, 'team_A_1.xml'), slowLevel());
  writeFileSync(join(levels, 'team_A_2.xml'), pathologicalXml('spot', 500));
  const traces = join(root, 'team', 'traces', 'A');
  mkdirSync(traces, { recursive: true });
  bombSize = await gzipBomb(join(traces, 'team_A_3.sbtrace.gz'), MAX_TRACE_BYTES + 8 * 1024 * 1024);
  server = await startViewer({ source: competitionSource(root) });
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (root) rmSync(root, { recursive: true, force: true });
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
    for (const path of ['/api/trial/%E0%A4%A/meta', '/api/trial/%zz/frames', '/api/trial/%/meta', '//']) {
      const res = await get(server, path);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body).error, path).toMatch(/malformed/);
    }
  });

  it('refuses a trace that inflates past the limit with a clear error', async () => {
    expect(bombSize).toBeLessThan(1024 * 1024);
    const res = await get(server, `/api/trial/${key('team', 'A', 'team_A_3')}/meta`);
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body).error).toMatch(/team_A_3\.sbtrace\.gz: the trace holds more than 256 MiB once decompressed/);
    expect(res.body.length).toBeLessThan(2_000);
  }, 120_000);

  it('ends a level over the simulation budget with its reason, and keeps serving', async () => {
    const res = await get(server, `/api/trial/${key('team', 'A', 'team_A_2')}/meta`);
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body).error).toMatch(/^Simulation budget exceeded/);
    expect((await get(server, '/api/session')).status).toBe(200);
  }, 120_000);

  it('simulates a level off the request thread: other requests are answered while it runs', async () => {
    // The moment the server hands the level to its simulation worker, and the moment that run settles:
    // events, not a count of requests within a time a loaded machine could shorten.
    let simulating = false;
    const run = WorkerEngine.prototype.run;
    const spy = vi.spyOn(WorkerEngine.prototype, 'run').mockImplementation(function (this: WorkerEngine, ...args: Parameters<WorkerEngine['run']>) {
      simulating = true;
      return run.apply(this, args).finally(() => {
        simulating = false;
      });
    });
    let metaDone = false;
    const meta = get(server, `/api/trial/${key('team', 'A', 'team_A_1')}/meta`).then((res) => {
      metaDone = true;
      return res;
    });
    // One request after another while the level is simulated. The test's client shares the server's
    // thread: a simulation on that thread would hold both until it ended (and never reach the worker).
    let answeredWhileSimulating = 0;
    try {
      while (!metaDone) {
        const asked = simulating;
        const session = await get(server, '/api/session');
        expect(session.status).toBe(200);
        if (asked && simulating) answeredWhileSimulating += 1;
      }
    } finally {
      spy.mockRestore();
    }
    expect(answeredWhileSimulating, 'session requests asked and answered while the worker held the level').toBeGreaterThanOrEqual(1);
    const done = await meta;
    expect(done.status).toBe(200);
    expect(JSON.parse(done.body).bodyCount).toBe(160);
  }, 180_000);
});

describe('survey server hardening', () => {
  let out: string;
  let survey: SurveyServer;
  let port: number;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'sbeval-survey-hostile-'));
    writeFileSync(join(out, 'survey.json'), JSON.stringify({ version: 1, title: 'hostile', instructions: '', seed: 1, root: '.', metrics: [], items: [] }));
    token = (await createInvites(out, 1))[0]!.token;
    survey = await startSurveyServer({ out });
    port = Number(new URL(survey.url).port);
  });
  let token: string;

  afterAll(async () => {
    await survey?.close();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('answers only requests addressed to 127.0.0.1 or localhost with its port (DNS rebinding)', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`])
      expect((await get({ port }, '/api/survey', host, 'GET', { 'x-survey-token': token })).status, host).toBe(200);
    for (const host of [`evil.example:${port}`, `localhost:${port + 1}`, 'localhost']) {
      expect((await get({ port }, '/api/survey', host)).status, host).toBe(403);
      expect((await get({ port }, '/api/replay/item-1', host, 'POST')).status, host).toBe(403);
    }
  });

  it('gives 400 for a malformed URL or % escape, not 500', async () => {
    for (const path of ['/api/me/%E0%A4%A', '/api/me/%zz', '//']) {
      const res = await get({ port }, path, undefined, 'PUT', { 'x-survey-token': token, 'content-type': 'application/json' });
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body).error, path).toMatch(/malformed/);
    }
  });
});
