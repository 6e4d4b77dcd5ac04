import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlayServer } from '../../viewer/play/server.js';
import { PROJECT_ROOT } from '../helpers/cli.js';

/**
 * The playground's server over a real socket: the built page's files with their types, and the
 * viewer's hardening — a foreign Host (DNS rebinding) is a 403, a malformed URL a 400, anything but
 * the folder's own file names (a walk out of it, encoded or not) a 404, and only GET and HEAD.
 */
function get(port: number, path: string, host = `127.0.0.1:${port}`, method = 'GET'): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
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
});
