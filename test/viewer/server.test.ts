import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_COUNT } from '../../bridge/frames.js';
import { type LoadedTrace, readTrace } from '../../bridge/trace.js';
import type { ViewerMeta } from '../../viewer/page-data.js';
import { startViewer, type ViewerServer } from '../../viewer/server.js';
import { openTraceFile } from '../../viewer/trace-source.js';
import { REFERENCE_LEVELS } from '../helpers/cli.js';

/** The viewer's HTTP API over a real socket: the JSON/binary wire format and what it refuses. */
const TRACE = fileURLToPath(new URL('../fixtures/corpus/reference/v1/levels/L/V1_L_2.sbtrace.gz', import.meta.url));
const REFERENCE = join(REFERENCE_LEVELS, 'v1/images/L/V1_L_2.png');

let server: ViewerServer;
let trace: LoadedTrace;

beforeAll(async () => {
  trace = await readTrace(TRACE);
  server = await startViewer({ source: { kind: 'trial', title: 'V1_L_2', load: () => openTraceFile(TRACE) }, reference: REFERENCE });
});
afterAll(async () => {
  await server.close();
});

const get = (path: string, init?: RequestInit) => fetch(new URL(path, server.url), init);

describe('viewer server', () => {
  it('listens on 127.0.0.1 on a port the OS picked', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(server.port).toBeGreaterThan(0);
  });

  it('serves the page and its modules, nothing from elsewhere', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    const html = await page.text();
    // Relative, so the page also works mounted below a path (the survey's replays: replay/<key>/).
    expect(html).toContain('<script type="module" src="static/app.js">');
    // Self-contained: no absolute URLs to other hosts (no CDN).
    expect(html).not.toMatch(/(src|href)="https?:/);
    const js = await get('/static/app.js');
    expect(js.headers.get('content-type')).toContain('text/javascript');
    expect(await js.text()).not.toMatch(/from ['"]https?:/);
  });

  it('describes the session and the trial, and sends frames as float32 + alive bytes + the displacement table', async () => {
    const session = await (await get('/api/session')).json();
    expect(session).toEqual({ mode: 'trial', title: 'V1_L_2', hasReference: true });
    const meta = (await (await get('/api/trial/main/meta')).json()) as ViewerMeta;
    expect(meta.bodyCount).toBe(trace.bodies.length);
    expect(meta.stepCount).toBe(trace.frames.stepCount);
    expect(meta.bodies.map((b) => b.type)).toEqual(trace.bodies.map((b) => b.type));
    // Competition blocks are drawn with their OCR sprite (RectSmall 0.72 × 0.24, reference/science-birds-evaluator.md §5).
    const rect = meta.bodies.find((b) => b.type === 'RectSmall')!;
    const xs = rect.draw![0]!.map((p) => p[0]);
    expect(Math.max(...xs) - Math.min(...xs)).toBeCloseTo(0.72, 6);
    expect(meta.explanation.counted).toBe(trace.bodies.length);
    const res = await get('/api/trial/main/frames');
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    const body = Buffer.from(await res.arrayBuffer());
    const n = meta.stepCount * meta.bodyCount;
    expect(body.length).toBe(n * FIELD_COUNT * 4 + n + n * 4);
    for (const i of [0, 7, n * FIELD_COUNT - 1]) expect(body.readFloatLE(i * 4)).toBe(trace.frames.states[i]);
    expect(Array.from(body.subarray(n * FIELD_COUNT * 4, n * FIELD_COUNT * 4 + n))).toEqual(Array.from(trace.frames.alive));
    // The displacement at the window's last read step is the one explain reports (float32 on the wire).
    const table = n * FIELD_COUNT * 4 + n;
    for (const b of meta.explanation.bodies) {
      expect(body.readFloatLE(table + (b.lastStep * meta.bodyCount + b.id) * 4)).toBe(Math.fround(b.finalDisplacement));
    }
    const reference = Buffer.from(await (await get('/api/reference.png')).arrayBuffer());
    expect(reference.equals(readFileSync(REFERENCE))).toBe(true);
  });

  it('refuses what it does not serve', async () => {
    expect((await get('/static/../server.ts')).status).toBe(404);
    expect((await get('/static/%2e%2e%2fserver.ts')).status).toBe(404);
    expect((await get('/api/trial/other/meta')).status).toBe(404);
    // Recorded without --capture: no capture to show, said as such.
    const capture = await get('/api/trial/main/capture.png');
    expect(capture.status).toBe(404);
    expect((await capture.json()).error).toContain('no capture');
    expect((await get('/api/session', { method: 'POST' })).status).toBe(405);
  });
});
