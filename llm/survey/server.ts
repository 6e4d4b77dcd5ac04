import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeError, SbevalError } from '../../core/errors.js';
import { allowedHosts, checkHost, decodeSegment, HttpError, listenOn, requestPath, urlHost } from '../../core/http-guard.js';
import { writeFileAtomic } from '../../orchestrator/layout/atomic.js';
import { createViewerHandler, type ViewerHandler, viewerErrorStatus } from '../../viewer/server.js';
import { answerPath, answerText, checkAnswer, type ItemAnswer, itemOrder, levelOf, MAX_COMMENT, readRater, readRaterItem } from './answers.js';
import { readSurvey, type SurveyFile } from './build.js';
import { type Invite, raterOfToken, readInvites } from './invites.js';
import type { PublicSurvey, RaterAnswer, RaterView } from './page-data.js';

/**
 * `sbeval survey serve`: the survey page (llm/survey/page/, static, no CDN) and its API, for raters on
 * this machine or elsewhere (`--host`, `--public-url`). Raters come by invitation only
 * (invites.ts): every API request carries the rater's token in `X-Survey-Token`, and is that rater's
 * or is refused (401) — there is no anonymous write, and no rater can write as another.
 * - `GET /api/survey` → title, instructions, metrics and the items without their team, level or file
 *   names (raters judge blind);
 * - `GET /api/me` → the rater's id, item order and answers so far;
 * - `PUT /api/me/<item>` `{values: {<metric>: n}, comment?}` → saved atomically before the reply
 *   (answers.ts: one file per answer, its size checked before it is written: 413 when too large, as
 *   for a comment longer than the survey takes); one rater's saves are applied in the order they arrive;
 * - `POST /api/replay/<item>` → a replay of that level in the viewer, served by this server on this
 *   port under an unguessable path (`replay/<key>/`), titled with the item number only; the four most
 *   recent stay open;
 * - `GET /assets/<file>.png` → the survey's pictures (named by item number), to invited raters only
 *   like the API: a level's pictures are the competition's unpublished results.
 * Every answer carries only what the rater may know: never a team, a level name or a path. An error
 * that is not the request's own (a level file gone, a disk fault) answers with a generic line and a
 * reference; its detail goes to the organizer's log (stderr) under that reference.
 * Hardening: a request whose `Host` is not the address served (or the public URL's) is refused (403,
 * DNS rebinding); every response forbids framing (`frame-ancestors 'none'`, `X-Frame-Options: DENY`;
 * the replay viewer: same origin only, it is framed by the survey page), so no other page can put the
 * rating buttons under a rater's click; PUT and POST need `Content-Type: application/json` and the
 * token header, neither of which a cross-site form or a simple request can send; a malformed URL or
 * `%` escape is a 400; bodies are capped (64 KiB).
 */
export interface SurveyServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

interface SurveyServerOptions {
  out: string;
  port?: number;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** The address raters use (a reverse proxy's); required when listening on every interface. */
  publicUrl?: string;
}

const MAX_BODY = 64 * 1024;
const REPLAYS_KEPT = 4;
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);
const LOOPBACKS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

function surveyStaticDir(): string {
  for (const candidate of ['./page/', '../../../llm/survey/page/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  throw new SbevalError(
    'launch',
    'the survey page (llm/survey/page/index.html) is missing from this installation',
    'reinstall sbeval: the package ships the page beside the code',
  );
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  png: 'image/png',
};
/** Nothing served by the survey may be framed by another page (clickjacking). */
const NO_FRAMING = { 'content-security-policy': "frame-ancestors 'none'", 'x-frame-options': 'DENY' };
/** The replay viewer is framed by the survey page itself, and by nothing else. */
const SAME_ORIGIN_FRAMING = { 'content-security-policy': "frame-ancestors 'self'", 'x-frame-options': 'SAMEORIGIN' };
const COMMON = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

async function body(req: IncomingMessage): Promise<unknown> {
  if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) throw new HttpError(415, 'send JSON (Content-Type: application/json)');
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

/** The `Host` values a request may carry: the address served, loopback names when local, the public URL's host. */
function hostsFor(host: string, port: number, publicUrl: URL | undefined): Set<string> {
  const hosts = WILDCARDS.has(host) ? allowedHosts('127.0.0.1', port) : allowedHosts(host, port);
  if (publicUrl) {
    hosts.add(publicUrl.host.toLowerCase());
    if (publicUrl.port === '') hosts.add(`${publicUrl.hostname.toLowerCase()}:${publicUrl.protocol === 'https:' ? 443 : 80}`);
  }
  return hosts;
}

function checkBinding(host: string, publicUrl: URL | undefined, invites: readonly Invite[]): void {
  if (WILDCARDS.has(host) && !publicUrl)
    throw new SbevalError(
      'config',
      `--host ${host} listens on every interface: raters need one address to use`,
      'pass --public-url with the address raters open (e.g. http://survey.example.org/)',
    );
  if (invites.length === 0)
    throw new SbevalError(
      'survey',
      'the survey has no invitations yet: raters come by invitation only',
      'create them first: sbeval survey invite <root> <number of raters>',
    );
  if (!LOOPBACKS.has(host) && publicUrl === undefined)
    process.stderr.write(`note: serving on ${host}: raters on other machines reach it with their invite links\n`);
}

/** What a rater may see of an answer: the values and the comment (never the level it belongs to). */
function forRater(answers: Record<string, ItemAnswer>, survey: SurveyFile): Record<string, RaterAnswer> {
  const out: Record<string, RaterAnswer> = {};
  for (const [itemId, a] of Object.entries(answers)) {
    if (checkAnswer(survey, itemId, a) !== undefined) continue;
    out[itemId] = { values: a.values, ...(a.comment !== undefined ? { comment: a.comment } : {}) };
  }
  return out;
}

/** Invited raters: the rater of a request's token (invitations re-read when a token is new: `survey invite` while serving). */
class Invitations {
  constructor(
    private readonly out: string,
    private invites: Invite[],
  ) {}

  raterOf(req: IncomingMessage): string {
    const token = String(req.headers['x-survey-token'] ?? '');
    let rater = raterOfToken(this.invites, token);
    if (rater === undefined && token !== '') {
      this.invites = readInvites(this.out);
      rater = raterOfToken(this.invites, token);
    }
    if (rater === undefined) throw new HttpError(401, 'this survey is by invitation: open the link you were sent');
    return rater;
  }
}

/** The organizer's log: what a rater is not told (paths, levels, unreadable answer files). */
const log = (line: string) => process.stderr.write(`survey: ${line}\n`);

/** A rater's answers as the server reads them; files that cannot be read are logged for the organizer, never shown to the rater. */
function raterAnswers(out: string, rater: string): Record<string, ItemAnswer> {
  const { file, warnings } = readRater(out, rater);
  for (const w of warnings) log(w);
  return file.answers;
}

/** Raters' answer files: each save applied atomically, one rater's saves in the order they arrive. */
class AnswerFiles {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly out: string,
    private readonly survey: SurveyFile,
  ) {}

  save(rater: string, itemId: string, answer: { values: Record<string, number>; comment?: string }): Promise<ItemAnswer> {
    const run = async () => {
      const path = answerPath(this.out, rater, itemId);
      const item = this.survey.items.find((i) => i.id === itemId);
      if (path === undefined || item === undefined) throw new HttpError(400, `no item ${itemId}`);
      const { answer: stored, warnings } = readRaterItem(this.out, rater, itemId);
      for (const w of warnings) log(w);
      // An answer to another level under the same item id (the survey was rebuilt) is not merged into.
      const previous = stored && (stored.level === undefined || stored.level === levelOf(item)) ? stored : undefined;
      const comment = answer.comment ?? previous?.comment;
      const next: ItemAnswer = {
        level: levelOf(item),
        values: { ...(previous?.values ?? {}), ...answer.values },
        ...(comment !== undefined ? { comment } : {}),
        at: new Date().toISOString(),
      };
      const text = answerText(next);
      if ('problem' in text) throw new HttpError(413, `${text.problem}: not saved`);
      await writeFileAtomic(path, text.text);
      return next;
    };
    const next = (this.queues.get(rater) ?? Promise.resolve()).then(run, run);
    this.queues.set(
      rater,
      next.catch(() => undefined),
    );
    return next;
  }

  async settle(): Promise<void> {
    await Promise.all([...this.queues.values()]);
  }
}

/** Replays in the viewer, mounted at `replay/<key>/` (an unguessable key per item); the most recent REPLAYS_KEPT stay open. */
class Replays {
  private readonly open = new Map<string, { item: string; handler: ViewerHandler }>();

  constructor(
    private readonly root: string,
    private readonly survey: SurveyFile,
  ) {}

  start(itemId: string): string {
    const item = this.survey.items.find((i) => i.id === itemId);
    if (!item) throw new HttpError(404, `no item ${itemId}`);
    const running = [...this.open].find(([, r]) => r.item === itemId);
    if (running) return running[0];
    const key = randomBytes(16).toString('hex');
    const title = `${itemId} (letter ${item.letter})`;
    // Simulated in the viewer's worker, within the engine's simulation budget (viewer/server.ts).
    const handler = createViewerHandler({
      source: { kind: 'trial', title, load: async (viewer) => viewer.simulate(itemId, await readFile(join(this.root, item.level), 'utf8')) },
      headers: SAME_ORIGIN_FRAMING,
    });
    this.open.set(key, { item: itemId, handler });
    while (this.open.size > REPLAYS_KEPT) {
      const [oldest, r] = this.open.entries().next().value as [string, { handler: ViewerHandler }];
      this.open.delete(oldest);
      void r.handler.close().catch(() => undefined);
    }
    return key;
  }

  handler(key: string): ViewerHandler {
    const r = this.open.get(key);
    if (!r) throw new HttpError(404, 'this replay is closed: start it again from the survey');
    return r.handler;
  }

  async close(): Promise<void> {
    for (const r of this.open.values()) await r.handler.close().catch(() => undefined);
  }
}

const send = (res: ServerResponse, status: number, type: string, data: string | Uint8Array) => {
  res.writeHead(status, { 'content-type': type, ...COMMON, ...NO_FRAMING });
  res.end(data);
};
const json = (res: ServerResponse, value: unknown, status = 200) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));

interface Parts {
  out: string;
  survey: SurveyFile;
  publicSurvey: PublicSurvey;
  invitations: Invitations;
  answers: AnswerFiles;
  replays: Replays;
}

/** `/api/…`: every route needs an invited rater. */
async function api(p: Parts, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const rater = p.invitations.raterOf(req);
  if (req.method === 'GET' && path === '/api/survey') return json(res, p.publicSurvey);
  if (req.method === 'GET' && path === '/api/me')
    return json(res, { rater, order: itemOrder(p.survey, rater), answers: forRater(raterAnswers(p.out, rater), p.survey) } satisfies RaterView);
  const put = /^\/api\/me\/([^/]+)$/.exec(path);
  if (put && req.method === 'PUT') {
    const itemId = decodeSegment(put[1]!, 'item id');
    const answer = (await body(req)) as { values?: Record<string, number>; comment?: string } | null;
    if (typeof answer?.comment === 'string' && answer.comment.length > MAX_COMMENT)
      throw new HttpError(413, `a comment holds at most ${MAX_COMMENT} characters, this one has ${answer.comment.length}: not saved`);
    const problem = checkAnswer(p.survey, itemId, { values: answer?.values, comment: answer?.comment });
    if (problem) throw new HttpError(400, problem);
    const saved = await p.answers.save(rater, itemId, { values: answer!.values!, ...(answer!.comment !== undefined ? { comment: answer!.comment } : {}) });
    return json(res, { saved: true, answer: forRater({ [itemId]: saved }, p.survey)[itemId] });
  }
  const r = /^\/api\/replay\/([a-z0-9-]+)$/.exec(path);
  if (r && req.method === 'POST') {
    await body(req);
    return json(res, { url: `replay/${p.replays.start(r[1]!)}/` });
  }
  throw new HttpError(404, 'not found');
}

/** The page and its static files (nothing of the competition), and the survey's pictures (invited raters only). */
async function files(p: Parts, dir: string, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  if (req.method !== 'GET') throw new HttpError(405, 'only GET');
  if (path === '/' || path === '/index.html') return send(res, 200, TYPES.html!, await readFile(join(dir, 'index.html')));
  if (/^\/static\/[a-z0-9-]+\.(js|css)$/.test(path)) {
    const file = join(dir, path.slice('/static/'.length));
    if (!existsSync(file)) throw new HttpError(404, 'not found');
    return send(res, 200, TYPES[path.split('.').at(-1)!]!, await readFile(file));
  }
  if (/^\/assets\/[a-z0-9-]+\.png$/.test(path)) {
    p.invitations.raterOf(req);
    const file = join(p.out, path.slice(1));
    if (!existsSync(file)) throw new HttpError(404, 'not found');
    return send(res, 200, TYPES.png!, await readFile(file));
  }
  throw new HttpError(404, 'not found');
}

async function route(p: Parts, dir: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = requestPath(req);
  if (req.method === 'OPTIONS') throw new HttpError(405, 'no cross-origin requests');
  const mounted = /^\/replay\/([0-9a-f]{32})(\/.*)?$/.exec(path);
  if (mounted) {
    const handler = p.replays.handler(mounted[1]!);
    if (mounted[2] === undefined) return void res.writeHead(308, { location: `${mounted[1]}/`, ...COMMON, ...NO_FRAMING }).end();
    return handler.handle(req, res, mounted[2]);
  }
  if (path.startsWith('/api/')) return api(p, req, res, path);
  return files(p, dir, req, res, path);
}

export async function startSurveyServer(options: SurveyServerOptions): Promise<SurveyServer> {
  const out = resolve(options.out);
  const survey: SurveyFile = readSurvey(out);
  const host = options.host ?? '127.0.0.1';
  const publicUrl = options.publicUrl === undefined ? undefined : new URL(options.publicUrl);
  const invites = readInvites(out);
  checkBinding(host, publicUrl, invites);
  const dir = surveyStaticDir();
  const parts: Parts = {
    out,
    survey,
    publicSurvey: {
      title: survey.title,
      instructions: survey.instructions,
      metrics: survey.metrics,
      items: survey.items.map((i) => ({
        id: i.id,
        letter: i.letter,
        start: i.start,
        final: i.final,
        grid: i.grid,
        history: i.history,
        historyNote: i.historyNote,
      })),
    },
    invitations: new Invitations(out, invites),
    answers: new AnswerFiles(out, survey),
    replays: new Replays(resolve(out, survey.root), survey),
  };
  let hosts: ReadonlySet<string> = new Set();
  const server = createServer((req, res) => {
    const handle = async () => {
      checkHost(req, hosts);
      await route(parts, dir, req, res);
    };
    handle().catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (error instanceof HttpError) return json(res, { error: error.message }, error.status);
      // Not the request's fault: its text may name a path, a team or a level (ENOENT of a level file).
      const reference = randomBytes(4).toString('hex');
      log(`${req.method ?? ''} ${req.url ?? ''} [${reference}]: ${describeError(error)}`);
      json(res, { error: `the survey could not do this (reference ${reference}); the organizer has the detail` }, viewerErrorStatus(error));
    });
  });
  const port = await listenOn(server, host, options.port);
  hosts = hostsFor(host, port, publicUrl);
  return {
    url: publicUrl?.toString() ?? `http://${urlHost(WILDCARDS.has(host) ? '127.0.0.1' : host)}:${port}/`,
    port,
    close: async () => {
      await parts.replays.close();
      await parts.answers.settle();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
