import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { describeError, SbevalError } from '../../core/errors.js';
import { allowedHosts, checkHost, closeNow, HttpError, listenOn, requestPath, urlHost } from '../../core/http-guard.js';
import { API_PATHS, answerApi, MAX_BODY_BYTES } from './api.js';

/**
 * The playground's files and their local server. The page is built for browsers at build time
 * (scripts/build-play.mjs → dist/play/: the bundled script, its HTML and CSS, onnxruntime-web's
 * WebAssembly build); everything is computed in the page, so the server only serves those files, on
 * 127.0.0.1, with the viewer's hardening (core/http-guard.ts: a foreign `Host` is a 403, a malformed
 * URL a 400) and only the folder's own file names (nothing can walk out of it). It also answers the
 * local JSON API (./api.ts).
 */

/**
 * A built page folder (`play`: the playground, `publish`: a published competition's trial page):
 * `dist/<folder>/` beside `dist/viewer/play/` once compiled, or the checkout's `dist/<folder>/` when run
 * from the sources.
 */
export function builtPageDir(folder: 'play' | 'publish', files: readonly string[]): string {
  for (const candidate of [`../../${folder}/`, `../../dist/${folder}/`]) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (files.every((f) => existsSync(`${dir}${f}`))) return dir;
  }
  throw new SbevalError('launch', `the page dist/${folder}/ is not built in this installation`, 'run `npm run build` in a checkout, or reinstall sbeval');
}

const playgroundDir = (): string => builtPageDir('play', ['index.html', 'play.js']);

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  wasm: 'application/wasm',
};

/** A file of the page: a plain name in the folder or in its `ort/` folder, nothing else. */
const FILE_PATH = /^\/(?:ort\/)?[a-z0-9][a-z0-9.-]*\.(html|js|mjs|css|wasm)$/i;

/** Copies the built page to `out` (a new or empty folder): the same files a static host serves. Gives the file count. */
export function writePlayground(out: string): number {
  if (existsSync(out) && readdirSync(out).length > 0)
    throw new SbevalError('input', `${out} is not empty`, 'give a new or empty folder: the page is copied into it');
  mkdirSync(out, { recursive: true });
  const dir = playgroundDir();
  cpSync(dir, out, { recursive: true });
  let count = 0;
  const walk = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(`${path}/${entry.name}`);
      else count++;
    }
  };
  walk(out);
  return count;
}

interface PlayServer {
  url: string;
  close(): Promise<void>;
}

/** The body of an API request: JSON only, and at most MAX_BODY_BYTES. */
async function readBody(req: IncomingMessage): Promise<string> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) throw new HttpError(415, 'send the request as application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `the body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function answer(dir: string, path: string): Promise<{ type: string; body: Uint8Array }> {
  const name = path === '/' ? '/index.html' : path;
  const m = FILE_PATH.exec(name);
  if (!m || name.includes('..')) throw new HttpError(404, 'not found');
  const file = `${dir}${name.slice(1)}`;
  if (!existsSync(file)) throw new HttpError(404, 'not found');
  return { type: CONTENT_TYPES[m[1]!.toLowerCase()]!, body: await readFile(file) };
}

/** Serves the built page on `host` (127.0.0.1 by default) and `port` (0: any free one). */
export async function startPlayServer(options: { port?: number; host?: string } = {}): Promise<PlayServer> {
  const dir = playgroundDir();
  const host = options.host ?? '127.0.0.1';
  let hosts: ReadonlySet<string> = new Set();
  const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
  const server = createServer((req, res) => {
    const run = async () => {
      checkHost(req, hosts);
      const path = requestPath(req);
      if ((API_PATHS as readonly string[]).includes(path)) {
        if (req.method !== 'POST') throw new HttpError(405, 'the API takes POST');
        const json = JSON.stringify(answerApi(path, await readBody(req)));
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...headers });
        return void res.end(json);
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'only GET');
      const { type, body } = await answer(dir, path);
      res.writeHead(200, { 'content-type': type, ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    run().catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(error instanceof HttpError ? error.status : 500, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify({ error: describeError(error) }));
    });
  });
  const port = await listenOn(server, host, options.port);
  hosts = allowedHosts(host, port);
  return {
    url: `http://${urlHost(host)}:${port}/`,
    close: () => closeNow(server),
  };
}
