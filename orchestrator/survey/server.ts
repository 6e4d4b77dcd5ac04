import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeError } from '../../core/errors.js';
import { allowedHosts, checkHost, decodeSegment, HttpError, requestPath } from '../../viewer/http-guard.js';
import { startViewer, type ViewerServer } from '../../viewer/server.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { checkAnswer, itemOrder, levelOf, raterPath, readRater, RATER_ID, type RaterFile } from './answers.js';
import { readSurvey, type SurveyFile } from './build.js';

/**
 * `sbeval survey serve`: the survey page (viewer/survey/, static, no CDN) and its API on 127.0.0.1:
 * - `GET /api/survey` → title, instructions, metrics and the items without their team or file names
 *   (raters judge blind);
 * - `GET /api/rater/<id>` → the rater's item order and answers so far;
 * - `PUT /api/rater/<id>/<item>` `{values: {<metric>: n}, comment?}` → saved atomically before the
 *   reply; one rater's saves are applied in the order they arrive;
 * - `POST /api/replay/<item>` → the URL of a viewer for that level, started on demand (titled with
 *   the item number only; the four most recent stay open);
 * - `GET /assets/<file>.png` → the survey's pictures.
 * A request for another `Host` than 127.0.0.1/localhost with the port is refused (403, DNS rebinding)
 * and a malformed URL or `%` escape is a 400 (viewer/http-guard.ts).
 */
export interface SurveyServer {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;
const REPLAYS_KEPT = 4;

export function surveyStaticDir(): string {
  for (const candidate of ['../../viewer/survey/', '../../../viewer/survey/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  throw new Error('the survey page (viewer/survey/index.html) is missing from this installation');
}

const TYPES: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', png: 'image/png' };

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpError(413, 'body too large');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
}

export async function startSurveyServer(options: { out: string; port?: number }): Promise<SurveyServer> {
  const out = resolve(options.out);
  const survey: SurveyFile = readSurvey(out);
  const root = resolve(out, survey.root);
  const dir = surveyStaticDir();
  const queues = new Map<string, Promise<unknown>>();
  const replays = new Map<string, Promise<ViewerServer>>();
  /** `Host` values a request may carry (DNS rebinding, viewer/http-guard.ts); filled once the port is known. */
  let hosts: ReadonlySet<string> = new Set();

  const send = (res: ServerResponse, status: number, type: string, data: string | Uint8Array) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    res.end(data);
  };
  const json = (res: ServerResponse, value: unknown, status = 200) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));

  const publicSurvey = {
    title: survey.title,
    instructions: survey.instructions,
    metrics: survey.metrics,
    items: survey.items.map((i) => ({ id: i.id, letter: i.letter, start: i.start, final: i.final, grid: i.grid, history: i.history, historyNote: i.historyNote })),
  };

  const save = (rater: string, itemId: string, answer: { values: Record<string, number>; comment?: string }): Promise<RaterFile> => {
    const run = async () => {
      const file = readRater(out, rater);
      const item = survey.items.find((i) => i.id === itemId)!;
      const stored = file.answers[itemId];
      // An answer to another level under the same item id (the survey was rebuilt) is not merged into.
      const previous = stored && (stored.level === undefined || stored.level === levelOf(item)) ? stored : undefined;
      file.answers[itemId] = {
        level: levelOf(item),
        values: { ...(previous?.values ?? {}), ...answer.values },
        ...(answer.comment !== undefined ? { comment: answer.comment } : previous?.comment !== undefined ? { comment: previous.comment } : {}),
        at: new Date().toISOString(),
      };
      file.updated = new Date().toISOString();
      await writeFileAtomic(raterPath(out, rater), `${JSON.stringify(file, null, 2)}\n`);
      return file;
    };
    const next = (queues.get(rater) ?? Promise.resolve()).then(run, run);
    queues.set(rater, next.catch(() => undefined));
    return next;
  };

  const replay = (itemId: string): Promise<ViewerServer> => {
    const item = survey.items.find((i) => i.id === itemId);
    if (!item) throw new HttpError(404, `no item ${itemId}`);
    let pending = replays.get(itemId);
    if (!pending) {
      const title = `${itemId} (letter ${item.letter})`;
      // Simulated in the viewer's worker, within the engine's simulation budget (viewer/server.ts).
      pending = startViewer({ source: { kind: 'trial', title, load: async (viewer) => viewer.simulate(itemId, await readFile(join(root, item.level), 'utf8')) } });
      replays.set(itemId, pending);
      pending.catch(() => replays.delete(itemId));
      while (replays.size > REPLAYS_KEPT) {
        const [oldest, server] = replays.entries().next().value as [string, Promise<ViewerServer>];
        replays.delete(oldest);
        void server.then((s) => s.close()).catch(() => undefined);
      }
    }
    return pending;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    checkHost(req, hosts);
    const path = requestPath(req);
    if (req.method === 'GET' && (path === '/' || path === '/index.html')) return send(res, 200, TYPES.html!, await readFile(join(dir, 'index.html')));
    if (req.method === 'GET' && /^\/static\/[a-z0-9-]+\.(js|css)$/.test(path)) {
      const file = join(dir, path.slice('/static/'.length));
      if (!existsSync(file)) throw new HttpError(404, 'not found');
      return send(res, 200, TYPES[path.split('.').at(-1)!]!, await readFile(file));
    }
    if (req.method === 'GET' && /^\/assets\/[a-z0-9-]+\.png$/.test(path)) {
      const file = join(out, path.slice(1));
      if (!existsSync(file)) throw new HttpError(404, 'not found');
      return send(res, 200, TYPES.png!, await readFile(file));
    }
    if (req.method === 'GET' && path === '/api/survey') return json(res, publicSurvey);
    const rater = /^\/api\/rater\/([^/]+)(?:\/([^/]+))?$/.exec(path);
    if (rater) {
      const id = decodeSegment(rater[1]!, 'rater id');
      if (!RATER_ID.test(id)) throw new HttpError(400, 'a rater id is 1–64 letters, digits, _ . -');
      if (req.method === 'GET' && !rater[2]) {
        const file = readRater(out, id);
        const current = Object.fromEntries(Object.entries(file.answers).filter(([itemId, a]) => checkAnswer(survey, itemId, a) === undefined));
        return json(res, { rater: id, order: itemOrder(survey, id), answers: current });
      }
      if (req.method === 'PUT' && rater[2]) {
        const itemId = decodeSegment(rater[2], 'item id');
        const answer = (await body(req)) as { values?: Record<string, number>; comment?: string };
        const problem = checkAnswer(survey, itemId, { values: answer.values, comment: answer.comment });
        if (problem) throw new HttpError(400, problem);
        const file = await save(id, itemId, { values: answer.values!, ...(answer.comment !== undefined ? { comment: answer.comment } : {}) });
        return json(res, { saved: true, answers: Object.fromEntries(Object.entries(file.answers).filter(([i, a]) => checkAnswer(survey, i, a) === undefined)) });
      }
    }
    const r = /^\/api\/replay\/([a-z0-9-]+)$/.exec(path);
    if (r && req.method === 'POST') return json(res, { url: (await replay(r[1]!)).url });
    throw new HttpError(404, 'not found');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      if (!res.headersSent) json(res, { error: describeError(error) }, status);
      else res.destroy();
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, '127.0.0.1', () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts('127.0.0.1', port);
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      for (const pending of replays.values()) await pending.then((s) => s.close()).catch(() => undefined);
      await Promise.all([...queues.values()]);
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
