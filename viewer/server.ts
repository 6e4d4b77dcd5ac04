import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { WorkerEngine } from '../bridge/headless/worker-engine.js';
import { TraceFormatError } from '../bridge/trace.js';
import { describeError, SbevalError } from '../core/errors.js';
import { allowedHosts, checkHost, closeNow, decodeSegment, HttpError, listenOn, requestPath, urlHost } from '../core/http-guard.js';
import type { ViewerMeta, ViewerSession } from './page-data.js';
import { simulateTrialData } from './simulate-trial.js';
import { type TrialData, viewerFrames, viewerMeta } from './trial.js';

/**
 * The viewer's local HTTP server: static files of the page (viewer/static, no CDN, no service worker)
 * and a small JSON/binary API over one trial or a whole competition folder. It binds to 127.0.0.1
 * only and serves the page and the data from the same origin, so no CORS is involved.
 *
 * Hardening: a request whose `Host` is not the address the server listens on (or `localhost` with its
 * port) is refused with 403, so a web page that rebinds its own DNS name to 127.0.0.1 cannot read the
 * scores and paths (DNS rebinding); a malformed URL is a 400; a trace is read with the trace loader's
 * size limit (bridge/trace.ts MAX_TRACE_BYTES: a gzip bomb is a 422, not gigabytes of memory); a level
 * without a trace is simulated in a worker thread (one, runs queued), so the server keeps answering
 * while it runs, and the headless engine's simulation budget (bridge/headless/budget.ts) ends a
 * pathological level with its reason (422).
 *
 * API (all GET):
 * - `/api/session` → `ViewerSession` (viewer/page-data.ts): the mode, the title, `hasReference`, the trials
 * - `/api/trial/<key>/meta` → `ViewerMeta` (viewer/page-data.ts): bodies with outlines, events, explanation
 * - `/api/trial/<key>/frames` → binary: float32 LE states (step × body × 6), uint8 alive (step × body), float32 LE displacement (step × body)
 * - `/api/trial/<key>/capture.png` → the trial's black-on-white capture (from the trace or the run)
 * - `/api/trial/<key>/image.png` → the image already in the competition folder (`images` stage)
 * - `/api/reference.png` → the reference image given with `--reference`
 * `<key>` is `main` for a single trial, else `team/C/name` URL-encoded as one segment (`team/C/name@k`
 * for recorded trial k when a run kept the traces of every trial).
 */
export type ViewerSource =
  /** One trial: a trace file or a level simulated on demand (with `viewer.simulate`: in the server's worker). */
  | { kind: 'trial'; title: string; load: (viewer: ViewerContext) => Promise<TrialData> }
  /**
   * A competition folder: `list` gives its trials (read once, when the page first asks), sorted as
   * the page shows them; a trial opens its trace when it has one, else its level is simulated.
   */
  | { kind: 'competition'; title: string; list: () => CompetitionTrial[]; openTrace: (path: string) => Promise<TrialData> };

/**
 * One trial of a competition folder as the viewer lists it: the files that exist for it (level XML,
 * traces, image), the scores already computed and why it has no image. The viewer reads no folder
 * itself: whoever starts it hands in the listing (`ViewerSource`, kind `competition`).
 */
export interface CompetitionTrial {
  /** `team/C/name`: the viewer's handle for the trial. */
  key: string;
  team: string;
  character: string;
  trial: number;
  name: string;
  levelPath: string | undefined;
  /** The trace opened by default: trial 1's when there are several. */
  tracePath: string | undefined;
  /** Every recorded trial of this level (`sbeval run --traces` records each trial), by trial number. */
  traces: Array<{ trial: number; path: string }>;
  imagePath: string | undefined;
  stability: { score: number; startingObjects: number | null; movingObjects: number | null } | undefined;
  similarity: number | undefined;
  /** Why the trial has no image (official wording): it may never have become a level at all. */
  reason: string | undefined;
}

/** What a trial source may use of the server. */
export interface ViewerContext {
  /** Runs trial 1 of a level in the server's simulation worker (queued, within the simulation budget). */
  simulate(levelId: string, xml: string): Promise<TrialData>;
}

export interface ViewerOptions {
  source: ViewerSource;
  /** 0 (default) lets the OS pick a free port. */
  port?: number;
  host?: string;
  /** A PNG shown beside the final capture (the Unity evaluator's image of the same level). */
  reference?: string;
}

export interface ViewerServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The page's files (viewer/static/): beside this module in the sources, two folders up and back down from `dist/viewer/`. */
function staticDir(): string {
  for (const candidate of ['./static/', '../../viewer/static/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  throw new SbevalError(
    'launch',
    'the viewer page (viewer/static/index.html) is missing from this installation',
    'reinstall sbeval: the package ships the page beside the code',
  );
}

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/** Only plain file names of the page are served: nothing can walk out of the static folder. */
const STATIC_NAME = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg)$/;
/** Trials kept in memory (each holds every frame of a 10-s run). */
const CACHE_SIZE = 8;

/**
 * On-demand simulation off the server's thread: one headless engine in a worker (replaced if it dies),
 * runs one after another. The engine applies its simulation budget to every run.
 */
class WorkerSimulator {
  private engine: WorkerEngine | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  simulate(levelId: string, xml: string): Promise<TrialData> {
    const run = this.queue.then(async () => {
      if (this.closed) throw new SbevalError('shutdown', 'the viewer is closing');
      if (!this.engine?.alive) {
        await this.engine?.close().catch(() => undefined);
        this.engine = new WorkerEngine(`viewer-${process.pid}`);
      }
      return simulateTrialData(levelId, xml, {}, this.engine);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.engine?.close().catch(() => undefined);
  }
}

/** A level the engine refuses (unreadable, over the simulation budget) or a trace that is not one: the request's fault, said plainly. */
function isInputError(error: unknown): boolean {
  return error instanceof TraceFormatError || (typeof error === 'object' && error !== null && (error as { levelError?: unknown }).levelError === true);
}

/** HTTP status of an error the viewer's handler threw. */
export function viewerErrorStatus(error: unknown): number {
  return error instanceof HttpError ? error.status : isInputError(error) ? 422 : 500;
}

export interface ViewerHandler {
  /** Answers one request for `path` (the path below where the viewer is mounted, starting with `/`); throws HttpError and the like. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The viewer's routes without a server of its own, so another server can mount it under a path (the
 * survey serves replays at `/replay/<key>/` on its own port). The page uses relative URLs, so it works
 * at any mount point. `headers` are added to every response (the survey's framing policy).
 */
export function createViewerHandler(options: ViewerRouteOptions): ViewerHandler {
  const routes = new ViewerRoutes(options);
  return { handle: (req, res, path) => routes.handle(req, res, path), close: () => routes.close() };
}

type ViewerRouteOptions = Pick<ViewerOptions, 'source' | 'reference'> & { headers?: Record<string, string> };
type LoadedTrial = { trial: TrialData; meta: ViewerMeta };

/** The viewer's routes over one source: the page's files, the session, and each trial's data (the last CACHE_SIZE trials kept). */
class ViewerRoutes {
  private readonly dir = staticDir();
  private readonly source: ViewerSource;
  private readonly cache = new Map<string, Promise<LoadedTrial>>();
  private trials: CompetitionTrial[] | undefined;
  private readonly simulator = new WorkerSimulator();
  private readonly context: ViewerContext = { simulate: (levelId, xml) => this.simulator.simulate(levelId, xml) };

  constructor(private readonly options: ViewerRouteOptions) {
    this.source = options.source;
  }

  close(): Promise<void> {
    return this.simulator.close();
  }

  private listing(): CompetitionTrial[] {
    if (this.source.kind !== 'competition') return [];
    this.trials ??= this.source.list();
    return this.trials;
  }

  private findTrial(key: string): CompetitionTrial {
    const t = this.listing().find((x) => x.key === key);
    if (!t) throw new HttpError(404, `no trial "${key}" in this folder`);
    return t;
  }

  private loadTrial(key: string): Promise<LoadedTrial> {
    const cache = this.cache;
    let pending = cache.get(key);
    if (pending) {
      // Most recently used last.
      cache.delete(key);
      cache.set(key, pending);
      return pending;
    }
    pending = this.openTrial(key);
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
    while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    return pending;
  }

  private async openTrial(key: string): Promise<LoadedTrial> {
    const source = this.source;
    let trial: TrialData;
    if (source.kind === 'trial') {
      if (key !== 'main') throw new HttpError(404, `no trial "${key}"`);
      trial = await source.load(this.context);
    } else {
      // `team/C/name` opens trial 1's trace (or the level); `team/C/name@k` a recorded trial k.
      const at = /^(.*)@(\d+)$/.exec(key);
      const t = this.findTrial(at ? at[1]! : key);
      const chosen = at ? t.traces.find((x) => x.trial === Number(at[2]))?.path : t.tracePath;
      if (at && !chosen) throw new HttpError(404, `trial "${t.key}" has no recorded trial ${at[2]}`);
      if (chosen) trial = await source.openTrace(chosen);
      else if (t.levelPath) trial = await this.simulator.simulate(t.name, await readFile(t.levelPath, 'utf8'));
      else throw new HttpError(404, `trial "${key}" has neither a trace nor a level file`);
    }
    return { trial, meta: viewerMeta(trial) };
  }

  private send(res: ServerResponse, status: number, type: string, body: string | Uint8Array): void {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...this.options.headers });
    res.end(body);
  }

  private json(res: ServerResponse, value: unknown, status = 200): void {
    this.send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'only GET');
    if (path === '/' || path === '/index.html') return this.send(res, 200, CONTENT_TYPES.html!, await readFile(`${this.dir}index.html`));
    if (path.startsWith('/static/')) return this.staticFile(res, path.slice('/static/'.length));
    if (path === '/api/session') return this.json(res, this.session());
    if (path === '/api/reference.png') {
      if (!this.options.reference) throw new HttpError(404, 'no reference image was given (--reference)');
      return this.send(res, 200, 'image/png', await readFile(this.options.reference));
    }
    const m = /^\/api\/trial\/([^/]+)\/(meta|frames|capture\.png|image\.png)$/.exec(path);
    if (m) return this.trialResource(res, decodeSegment(m[1]!, 'trial key'), m[2]!);
    throw new HttpError(404, 'not found');
  }

  private async staticFile(res: ServerResponse, name: string): Promise<void> {
    if (!STATIC_NAME.test(name)) throw new HttpError(404, 'not found');
    const file = `${this.dir}${name}`;
    if (!existsSync(file)) throw new HttpError(404, 'not found');
    return this.send(res, 200, CONTENT_TYPES[name.split('.').at(-1)!]!, await readFile(file));
  }

  /** `/api/session`: the mode, the title, and in a competition every trial with what the folder holds of it. */
  private session(): ViewerSession {
    const source = this.source;
    const base = { hasReference: this.options.reference !== undefined };
    if (source.kind === 'trial') return { mode: 'trial', title: source.title, ...base };
    return {
      mode: 'competition',
      title: source.title,
      ...base,
      trials: this.listing().map((t) => ({
        key: t.key,
        team: t.team,
        character: t.character,
        trial: t.trial,
        name: t.name,
        hasTrace: t.tracePath !== undefined,
        tracedTrials: t.traces.map((x) => x.trial),
        hasLevel: t.levelPath !== undefined,
        hasImage: t.imagePath !== undefined,
        stability: t.stability ?? null,
        similarity: t.similarity ?? null,
        reason: t.reason ?? null,
      })),
    };
  }

  /** `/api/trial/<key>/<what>`: the folder's image, or the trial's meta, frames or capture. */
  private async trialResource(res: ServerResponse, key: string, what: string): Promise<void> {
    if (what === 'image.png') {
      const image = this.source.kind === 'competition' ? this.findTrial(key.replace(/@\d+$/, '')).imagePath : undefined;
      if (!image) throw new HttpError(404, 'no image for this trial in the folder');
      return this.send(res, 200, 'image/png', await readFile(image));
    }
    const { trial, meta } = await this.loadTrial(key);
    if (what === 'meta') return this.json(res, meta);
    if (what === 'frames') return this.send(res, 200, 'application/octet-stream', viewerFrames(trial));
    if (!trial.capture) throw new HttpError(404, 'this trial has no capture');
    return this.send(res, 200, 'image/png', trial.capture);
  }
}

export async function startViewer(options: ViewerOptions): Promise<ViewerServer> {
  const host = options.host ?? '127.0.0.1';
  const handler = createViewerHandler(options);
  /** `Host` values a request may carry (filled once the port is known). */
  let hosts: ReadonlySet<string> = new Set();
  const server = createServer((req, res) => {
    const run = async () => {
      checkHost(req, hosts);
      await handler.handle(req, res, requestPath(req));
    };
    run().catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(viewerErrorStatus(error), {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      res.end(JSON.stringify({ error: describeError(error) }));
    });
  });
  const port = await listenOn(server, host, options.port);
  hosts = allowedHosts(host, port);
  return {
    url: `http://${urlHost(host)}:${port}/`,
    port,
    close: async () => {
      await closeNow(server);
      await handler.close();
    },
  };
}
