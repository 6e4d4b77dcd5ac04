import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../viewer/play/api.js';
import { startPlayServer } from '../../viewer/play/server.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { sbevalInProcess } from '../orchestrator/helpers/in-process-cli.js';

/**
 * The playground's server over a real socket: the built page's files with their types, and the
 * viewer's hardening — a foreign Host (DNS rebinding) is a 403, a malformed URL a 400, anything but
 * the folder's own file names (a walk out of it, encoded or not) a 404, and only GET and HEAD; and
 * its JSON API, whose verdicts are `sbeval level`'s.
 */
const json = (body: unknown) => ({ type: 'application/json', body: JSON.stringify(body) });
function get(
  port: number,
  path: string,
  host = `127.0.0.1:${port}`,
  method = 'GET',
  send?: { type: string; body: string | Buffer },
): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = { host, ...(send ? { 'content-type': send.type } : {}) };
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(send?.body);
  });
}

let server: Awaited<ReturnType<typeof startPlayServer>>;
let port = 0;

beforeAll(async () => {
  server = await startPlayServer();
  port = Number(new URL(server.url).port);
});

afterAll(() => server?.close());

describe('sbeval play: the server', () => {
  it("serves the built page's files, the ONNX runtime's WebAssembly among them, byte for byte", async () => {
    const dist = join(PROJECT_ROOT, 'dist', 'play');
    for (const [path, file, type] of [
      ['/', 'index.html', 'text/html'],
      ['/play.js', 'play.js', 'text/javascript'],
      ['/play.css', 'play.css', 'text/css'],
      ['/ort/ort-wasm-simd-threaded.wasm', 'ort/ort-wasm-simd-threaded.wasm', 'application/wasm'],
    ] as const) {
      const res = await get(port, path);
      expect([path, res.status, res.type.split(';')[0]]).toEqual([path, 200, type]);
      expect(res.body.equals(readFileSync(join(dist, file))), path).toBe(true);
    }
  });

  it('refuses a foreign Host, malformed URLs, paths out of the folder, unknown files and other methods', async () => {
    expect((await get(port, '/', `attacker.example:${port}`)).status).toBe(403);
    expect((await get(port, '/', 'localhost')).status).toBe(403);
    expect((await get(port, `/`, `localhost:${port}`)).status).toBe(200);
    expect((await get(port, '//')).status).toBe(400);
    for (const path of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/ort/../../package.json',
      '/ort/%2e%2e%2fplay.js',
      '/missing.js',
      '/server.ts',
      '/.build-stamp.json',
    ])
      expect([path, (await get(port, path)).status]).toEqual([path, 404]);
    expect((await get(port, '/', undefined, 'POST')).status).toBe(405);
    const head = await get(port, '/play.js', undefined, 'HEAD');
    expect([head.status, head.body.length]).toEqual([200, 0]);
  });

  it("answers the JSON API with sbeval level's verdict and the official reasons, JSON only and bounded", async () => {
    const file = join(PROJECT_ROOT, 'calibration', 'reference-levels', 'v1', 'levels', 'L', 'V1_L_2.xml');
    const level = await sbevalInProcess(['level', file, '--json']);
    expect(level.code, level.stderr).toBe(0);
    const expected = JSON.parse(level.stdout) as { score: number; startingObjects: number; movingObjects: number; trials: unknown };
    const answer = await get(port, '/api/level', undefined, 'POST', json({ text: readFileSync(file, 'utf8') }));
    expect(answer.status).toBe(200);
    const verdict = JSON.parse(answer.body.toString('utf8'));
    expect([verdict.kind, verdict.score, verdict.startingObjects, verdict.movingObjects, verdict.trials]).toEqual([
      'xml',
      expected.score,
      expected.startingObjects,
      expected.movingObjects,
      expected.trials,
    ]);
    const noCode = JSON.parse((await get(port, '/api/level', undefined, 'POST', json({ text: 'I would build a T.', kind: 'response' }))).body.toString());
    expect(noCode).toEqual({ kind: 'response', ok: false, stage: 'extract', reason: 'Code not found.' });
    // The example's trial the official converter refuses (its logs say so: examples/README.md).
    const refused = readFileSync(join(PROJECT_ROOT, 'examples', 'competition', 'BlockSmith', 'raw', 'T', 'BlockSmith_T_3.txt'), 'utf8');
    const extracted = JSON.parse((await get(port, '/api/extract', undefined, 'POST', json({ text: refused }))).body.toString());
    expect(extracted).toEqual({ kind: 'response', ok: false, stage: 'convert', reason: 'Width boundary is intruded.' });
    expect((await get(port, '/api/level', undefined, 'POST', { type: 'text/plain', body: '{"text":"x"}' })).status).toBe(415);
    expect((await get(port, '/api/level', undefined, 'POST', { type: 'application/json', body: '{"text":' })).status).toBe(400);
    expect((await get(port, '/api/level', undefined, 'POST', json({ text: 'x', kind: 'poem' }))).status).toBe(400);
    expect((await get(port, '/api/level', undefined, 'POST', { type: 'application/json', body: Buffer.alloc(MAX_BODY_BYTES + 1, 32) })).status).toBe(413);
    expect((await get(port, '/api/level')).status).toBe(405);
  });
});
